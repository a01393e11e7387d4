/**
 * Drives the built `cortex` CLI headlessly: `cortex run … --json --input stream-json` with a pipe
 * on stdin. Send contract operations as JSON lines, watch the events as they arrive, close stdin,
 * and await the exit. Used by every test of the headless interface.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { EventEnvelope, Operation, SessionEvent } from '../../src/shared/events'
import { CLI, type CliRun } from './cli'

/** A running headless CLI. `events` and `stderr` grow live. */
export interface StreamCli {
  child: ChildProcessWithoutNullStreams
  events: EventEnvelope[]
  stderr(): string
  /** Write one operation (or any raw text, sent verbatim plus a newline) to stdin. */
  send(op: Operation | string): void
  /** Close stdin: the CLI exits once no turn runs. */
  end(): void
  /**
   * Resolve with the first event of `type` matching `pred`, among those from index `from` of
   * {@link events} on (default 0: already seen or future; pass `cli.events.length` for the next one).
   * @param timeoutMs hang guard (default 60 s); rejects naming the events seen
   */
  waitFor<T extends SessionEvent['type']>(
    type: T,
    pred?: (e: Extract<SessionEvent, { type: T }>) => boolean,
    opts?: { from?: number; timeoutMs?: number }
  ): Promise<Extract<SessionEvent, { type: T }>>
  /** {@link done}, but killing the CLI (SIGKILL) and rejecting when it has not exited within `timeoutMs` (hang guard, default 60 s). */
  exit(timeoutMs?: number): Promise<CliRun>
  /** Resolves at exit with everything collected. */
  done: Promise<CliRun>
}

/**
 * Spawn `cortex ...args` with stdin piped. Pass `--json --input stream-json` in `args` yourself.
 * @param opts.env extra environment
 * @throws at once when the CLI is not built
 */
export function startStreamCli(args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): StreamCli {
  if (!existsSync(resolve('out/cli/index.mjs'))) throw new Error('the CLI is not built: run `npm run build` first')
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] })
  const events: EventEnvelope[] = []
  const waiters = new Set<() => void>()
  let stdout = ''
  let partial = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c
    partial += c
    const lines = partial.split('\n')
    partial = lines.pop() ?? ''
    for (const l of lines) if (l.startsWith('{')) events.push(JSON.parse(l) as EventEnvelope)
    for (const w of waiters) w()
  })
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
  child.stdin.on('error', () => undefined) // EPIPE after the CLI exited: the test sees the exit instead
  const done = new Promise<CliRun>((resolveDone, fail) => {
    child.on('error', fail)
    child.on('close', (code, signal) => {
      for (const w of waiters) w()
      resolveDone({ code, signal, stdout, stderr, events: events.slice() })
    })
  })
  const waitFor: StreamCli['waitFor'] = (type, pred, { from = 0, timeoutMs = 60_000 } = {}) =>
    new Promise((resolveWait, reject) => {
      type E = Extract<SessionEvent, { type: typeof type }>
      const check = (): boolean => {
        const hit = events.slice(from).find((e) => e.event.type === type && (!pred || pred(e.event as E)))
        if (!hit) return false
        cleanup()
        resolveWait(hit.event as E)
        return true
      }
      const onChange = (): void => {
        if (check()) return
        if (child.exitCode !== null || child.signalCode !== null) {
          cleanup()
          reject(new Error(`the CLI exited before a ${type} event; events: ${events.map((e) => e.event.type).join(', ')}; stderr: ${stderr}`))
        }
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`no ${type} event within ${timeoutMs} ms; events: ${events.map((e) => e.event.type).join(', ')}; stderr: ${stderr}`))
      }, timeoutMs)
      const cleanup = (): void => {
        clearTimeout(timer)
        waiters.delete(onChange)
      }
      waiters.add(onChange)
      onChange()
    })
  return {
    child,
    events,
    stderr: () => stderr,
    send: (op) => child.stdin.write((typeof op === 'string' ? op : JSON.stringify(op)) + '\n'),
    end: () => child.stdin.end(),
    waitFor,
    done,
    exit: (timeoutMs = 60_000) => {
      let timer: NodeJS.Timeout | undefined
      const guard = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL')
          reject(new Error(`the CLI did not exit within ${timeoutMs} ms; events: ${events.map((e) => e.event.type).join(', ')}; stderr: ${stderr}`))
        }, timeoutMs)
      })
      return Promise.race([done, guard]).finally(() => clearTimeout(timer))
    }
  }
}
