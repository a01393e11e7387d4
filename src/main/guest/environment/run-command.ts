/**
 * Running a build command (docker, bash, npm, tar) on the host with its output as lines: the
 * one process helper of the image builders; and {@link dockerQuery}, a short docker CLI call
 * bounded by a deadline and the caller's Stop.
 */
import { spawn } from 'node:child_process'
import { CortexError } from '../../../shared/errors'

/** Longest a short docker CLI call (image inspect, info, create, cp, rm) may take, in seconds. */
export const DOCKER_QUERY_DEADLINE_S = 30

/** Outcome of {@link runCommand}: the exit code (null when killed) and the last 20 output lines. */
export interface CommandResult {
  code: number | null
  tail: string[]
}

/**
 * Run `argv` (no shell), passing each stdout/stderr line to `onLine`; `signal` kills it.
 * @param opts.cwd working folder; opts.env extra environment variables (merged over process.env);
 *   opts.stdin bytes written to its stdin, which is then closed (default: no stdin); opts.killSignal
 *   what an abort sends (default SIGTERM)
 * @throws the spawn error (e.g. ENOENT when the program is missing, AbortError on abort)
 */
export function runCommand(
  argv: string[],
  onLine?: (line: string) => void,
  signal?: AbortSignal,
  opts: { cwd?: string; env?: Record<string, string>; stdin?: Uint8Array; killSignal?: NodeJS.Signals } = {}
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), {
      stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      signal,
      ...(opts.killSignal && { killSignal: opts.killSignal }),
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.env ? { env: { ...process.env, ...opts.env } } : {})
    })
    const tail: string[] = []
    for (const s of [child.stdout!, child.stderr!]) {
      let buf = ''
      s.setEncoding('utf8')
      s.on('data', (d: string) => {
        buf += d
        const lines = buf.split('\n')
        buf = lines.pop() ?? ''
        for (const l of lines) {
          tail.push(l)
          if (tail.length > 20) tail.shift()
          onLine?.(l)
        }
      })
    }
    if (opts.stdin && child.stdin) {
      child.stdin.on('error', () => undefined) // EPIPE when the program exits without reading: its exit code tells
      child.stdin.end(opts.stdin)
    }
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, tail }))
  })
}

/**
 * Run a short docker CLI call `argv` (`docker …`) with a deadline and the caller's Stop: see
 * {@link runCommand} for `onLine`.
 * @param deadlineS seconds before the call is killed (default {@link DOCKER_QUERY_DEADLINE_S})
 * @throws CortexError `docker_unavailable` when the CLI cannot run or the engine does not answer
 *   by the deadline (the message names the call and says to check the engine); the AbortError
 *   when `signal` aborts first (the process is killed at once)
 */
export async function dockerQuery(argv: string[], onLine?: (line: string) => void, signal?: AbortSignal, deadlineS = DOCKER_QUERY_DEADLINE_S): Promise<CommandResult> {
  const deadline = AbortSignal.timeout(deadlineS * 1000)
  try {
    return await runCommand(argv, onLine, signal ? AbortSignal.any([signal, deadline]) : deadline, { killSignal: 'SIGKILL' })
  } catch (err) {
    if (signal?.aborted) throw err
    if (deadline.aborted) {
      // no cause: the spawn's AbortError in the chain would make the turn take the deadline for the user's Stop
      throw new CortexError('docker_unavailable', `the Docker engine did not answer \`${argv.slice(0, 3).join(' ')}\` within ${deadlineS} s: check that it runs (docker info), then try again`)
    }
    throw new CortexError('docker_unavailable', `cannot run the docker CLI: ${(err as Error).message}`, { cause: err })
  }
}
