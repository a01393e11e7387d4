/**
 * Whether the interactive CLI has taken the keyboard: its pseudo-terminal is in raw mode (no
 * canonical line editing, no echo), which Ink turns on after the first frame. Read from outside with
 * `stty -F /proc/PID/fd/0`, for the CLI processes this test process started (test/support/pty-screen.ts).
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** Pids of this process's children whose command line names `cortex.cjs` (the built CLI). */
function cliChildren(): string[] {
  const me = String(process.pid)
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]
      return ppid === me && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('cortex.cjs')
    } catch {
      return false // gone meanwhile
    }
  })
}

/** Whether the terminal of process `pid` (its stdin) is in raw mode; false when it cannot be read. */
function rawMode(pid: string): boolean {
  try {
    const flags = execFileSync('stty', ['-a', '-F', `/proc/${pid}/fd/0`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    return /(^|\s)-icanon(\s|$)/.test(flags) && /(^|\s)-echo(\s|$)/.test(flags)
  } catch {
    return false
  }
}

/**
 * Resolve once every CLI this process runs on a pseudo-terminal (at least one) has its terminal in
 * raw mode; reject after `timeoutMs` (a hang guard: raw mode follows the first frame by milliseconds).
 */
export async function waitForRawMode(timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const pids = cliChildren()
    if (pids.length > 0 && pids.every(rawMode)) return
    if (Date.now() > end) throw new Error(`the CLI's terminal was not in raw mode within ${timeoutMs} ms (CLI pids: ${pids.join(', ') || 'none'})`)
    await new Promise((r) => setTimeout(r, 20)) // poll interval
  }
}
