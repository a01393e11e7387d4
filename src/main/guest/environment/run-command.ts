/**
 * Running a build command (docker, bash, npm, tar) on the host with its output as lines: the
 * one process helper of the image builders.
 */
import { spawn } from 'node:child_process'

/** Outcome of {@link runCommand}: the exit code (null when killed) and the last 20 output lines. */
export interface CommandResult {
  code: number | null
  tail: string[]
}

/**
 * Run `argv` (no shell), passing each stdout/stderr line to `onLine`; `signal` kills it.
 * @param opts.cwd working folder; opts.env extra environment variables (merged over process.env)
 * @throws the spawn error (e.g. ENOENT when the program is missing, AbortError on abort)
 */
export function runCommand(
  argv: string[],
  onLine?: (line: string) => void,
  signal?: AbortSignal,
  opts: { cwd?: string; env?: Record<string, string> } = {}
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.env ? { env: { ...process.env, ...opts.env } } : {})
    })
    const tail: string[] = []
    for (const s of [child.stdout, child.stderr]) {
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
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, tail }))
  })
}
