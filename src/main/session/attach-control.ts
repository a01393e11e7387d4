/**
 * The session's guest start as Stop sees it (ADR 0008): Stop cancels a start in progress (the
 * provider removes whatever it created) and the next turn starts a new one when it begins; a guest
 * that is already running is kept. Close aborts a start without asking for another.
 */
import { errorFields, type Logger } from '../../shared/logger-types'
import { abortError } from '../guest/agent-client'
import type { Guest } from '../guest/guest'

/** Tracks the one guest start a session may have in progress. */
export class AttachControl {
  private current: AbortController | null = null
  private reattach = false
  /** The latest start, settled or not. */
  private last: Promise<unknown> = Promise.resolve()
  /** Settles once the starts cancelled so far have cleaned up (never rejects). */
  private cancelled: Promise<unknown> = Promise.resolve()

  /**
   * Begin a start: `start` runs once every start cancelled before has settled (a cancelled start
   * removes its container and the git guard's placeholders, which a new start of the same
   * repository would mount), with a signal that {@link cancel} and {@link abortForClose} abort.
   * Resolves or rejects like `start` (an AbortError when cancelled).
   */
  begin<T>(start: (signal: AbortSignal) => Promise<T>): { promise: Promise<T>; signal: AbortSignal } {
    const abort = new AbortController()
    this.current = abort
    const promise = this.cancelled.then(() => start(abort.signal)).finally(() => {
      if (this.current === abort) this.current = null
    })
    this.last = promise
    return { promise, signal: abort.signal }
  }

  /**
   * Stop: cancel the start in progress, if any; the next turn then starts one ({@link takeReattach}).
   * Returns whether one was cancelled: the session then forgets it at once, so a turn started
   * before the cancelled start has finished cleaning up gets a new start, not its AbortError.
   */
  cancel(): boolean {
    if (!this.current) return false
    this.current.abort()
    this.current = null
    this.cancelled = this.last.catch(() => undefined)
    this.reattach = true
    return true
  }

  /** Session close: cancel the start in progress, if any, for good. */
  abortForClose(): void {
    this.current?.abort()
    this.current = null
    this.reattach = false
  }

  /** Whether a Stop cancelled a start since the last call (true once). */
  takeReattach(): boolean {
    const r = this.reattach
    this.reattach = false
    return r
  }
}

/**
 * A guest that became ready just as its start was cancelled: remove it in the background and
 * return the AbortError the start rejects with.
 */
export function dropCancelledGuest(guest: Guest, logger: Logger): Error {
  void guest.close().catch((err: unknown) => logger.debug('removing a guest whose start was cancelled failed', { guestId: guest.id, ...errorFields(err) }))
  return abortError('guest start cancelled')
}

/** Whether a start failed because it was cancelled (Stop or close) rather than broken. */
export function isCancelledStart(err: unknown): boolean {
  return (err as Error | null)?.name === 'AbortError'
}
