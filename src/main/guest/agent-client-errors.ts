/**
 * The errors of the host side of the guest-agent protocol (agent-client.ts): the AbortError a
 * stopped call rejects with, and the CortexError `guest_failed` in-flight calls get when the
 * agent's connection ends.
 */
import { CortexError } from '../../shared/errors'

/** An Error named `AbortError` (what fetch and node APIs reject with on abort). */
export function abortError(message = 'The operation was aborted'): Error {
  const e = new Error(message)
  e.name = 'AbortError'
  return e
}

/**
 * Hands `settle` the error in-flight calls get when the connection ended because of `cause`: a
 * CortexError `cause` as it is, else a CortexError `guest_failed` "the guest agent exited" with
 * `cause`'s message and what `describeExit` adds (e.g. the exit code and the agent's stderr tail).
 * `settle` runs synchronously unless `describeExit` returns a promise, then once it settles; a
 * `describeExit` that throws or rejects adds nothing. Never throws (unless `settle` does).
 */
export function settleExitError(cause: Error | undefined, describeExit: () => string | Promise<string>, settle: (err: Error) => void): void {
  if (cause instanceof CortexError) {
    settle(cause)
    return
  }
  const build = (extra: string): Error =>
    new CortexError('guest_failed', `the guest agent exited${cause ? ` (${cause.message})` : ''}${extra ? `: ${extra}` : ''}`, { cause })
  let extra: string | Promise<string>
  try {
    extra = describeExit()
  } catch {
    extra = '' // the exit is reported without the extra context describeExit failed to give
  }
  if (typeof extra === 'string') settle(build(extra))
  else extra.then((e) => settle(build(e)), () => settle(build('')))
}
