/**
 * `cortex run`: open a session on a repository, run one turn for PROMPT, stream it to the
 * terminal (or JSON lines with --json), close the session (removing its guest) and exit:
 * 0 when the turn completed, 130 after Ctrl-C (which stops the turn), 1 on an error.
 */
import { resolve } from 'node:path'
import { CortexError, toCortexError } from '../shared/errors'
import type { EventEnvelope } from '../shared/events'
import type { Mode } from '../shared/modes'
import type { SandboxPolicy } from '../shared/sandbox'
import { sweepOrphanGuests, createDefaultGuestProvider, createSessionService, listStoredSessions, resolveModelSettings, type ModelFlags } from '../main/session'
import { dataDir } from './paths'
import { createRenderer } from './render'

/** Options of `cortex run` after parsing. `repo` may be relative (resolved against the cwd). */
export interface RunOptions extends ModelFlags {
  /** Repository folder; ignored with `resume`. */
  repo?: string
  /** Id of a stored session to continue. */
  resume?: string
  mode: Mode
  sandbox: SandboxPolicy
  json: boolean
}

/** Exit status of `cortex run`: 0 completed, 130 stopped by Ctrl-C, 1 error. */
export type RunExit = 0 | 1 | 130

/**
 * Run one turn and resolve with the exit status. Never throws: configuration and infrastructure
 * errors are printed as one line (`error: …`, or an `error` JSON event with --json).
 */
export async function runCommand(prompt: string, opts: RunOptions, io = { out: process.stdout, err: process.stderr }): Promise<RunExit> {
  const printError = (e: CortexError): void => {
    if (opts.json) io.out.write(JSON.stringify({ sessionId: null, seq: 0, time: Date.now(), event: { type: 'error', code: e.code, message: e.message } }) + '\n')
    else io.err.write(`error: ${e.message}\n`)
  }
  let service: Awaited<ReturnType<typeof createSessionService>> | undefined
  // Ctrl-C is ours from the first moment: before the session exists it only marks the run as
  // interrupted, so a guest being started is still closed (never left running) before exit
  let interrupts = 0
  let sessionId = ''
  const onSigint = (): void => {
    interrupts++
    if (interrupts > 1) process.exit(130)
    if (!opts.json) io.err.write('\nstopping… (Ctrl-C again to quit at once)\n')
    if (sessionId) void service?.submit({ sessionId, op: { type: 'stop' } }).catch(() => undefined)
  }
  process.on('SIGINT', onSigint)
  process.on('SIGTERM', onSigint) // e.g. `timeout`: stop the turn and remove the guest, as for Ctrl-C
  try {
    sweepOrphanGuests()
    const modelSettings = resolveModelSettings({ provider: opts.provider, model: opts.model, baseUrl: opts.baseUrl }, process.env)
    service = await createSessionService({ dataDir: dataDir(), modelSettings, guests: createDefaultGuestProvider({ warmPool: 0 }) })
    const render = opts.json
      ? (e: EventEnvelope) => io.out.write(JSON.stringify(e) + '\n')
      : createRenderer({ out: io.out, err: io.err, color: Boolean((io.out as NodeJS.WriteStream).isTTY) })
    const early: EventEnvelope[] = []
    let ended: 'completed' | 'stopped' | 'error' | null = null
    let resolveEnd: () => void = () => undefined
    const endPromise = new Promise<void>((r) => (resolveEnd = r))
    service.onEvent((e) => {
      if (!sessionId) return void early.push(e)
      if (e.sessionId !== sessionId) return
      render(e)
      if (e.event.type === 'turn_ended') {
        ended = e.event.reason
        resolveEnd()
      }
    })
    const info = opts.resume
      ? await service.resumeSession({ sessionId: opts.resume })
      : await service.openSession({ repo: resolve(opts.repo ?? '.'), mode: opts.mode, sandbox: opts.sandbox })
    if (opts.resume && info.mode !== opts.mode) await service.submit({ sessionId: info.id, op: { type: 'set_mode', mode: opts.mode } })
    sessionId = info.id
    for (const e of early.filter((x) => x.sessionId === sessionId)) render(e)

    if (interrupts === 0) {
      await service.submit({ sessionId, op: { type: 'user_message', text: prompt } })
      await endPromise
    }
    await service.closeSession({ sessionId })
    if (interrupts > 0 || ended === 'stopped') return 130
    return ended === 'completed' ? 0 : 1
  } catch (err) {
    printError(toCortexError(err))
    return 1
  } finally {
    await service?.shutdown().catch(() => undefined)
    process.off('SIGINT', onSigint)
    process.off('SIGTERM', onSigint)
  }
}

/** `cortex sessions`: print one line per stored session (id, created, mode, repository), or say there are none and where it looked; returns 0. */
export function sessionsCommand(out: NodeJS.WritableStream = process.stdout): number {
  const all = listStoredSessions(dataDir())
  if (all.length === 0) out.write(`no stored sessions in ${dataDir()}\n`)
  for (const m of all) {
    out.write(`${m.id}  ${new Date(m.createdAt).toISOString().slice(0, 16).replace('T', ' ')}  ${m.mode.padEnd(5)}  ${m.repo}\n`)
  }
  return 0
}
