/**
 * A real terminal for tests: the built `cortex` CLI in a pseudo-terminal (node-pty) whose output is
 * fed to a headless xterm (@xterm/headless), so a test reads the screen a person would see, types
 * keys, resizes, and saves screen dumps under test-results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import * as pty from 'node-pty'
import xtermHeadless from '@xterm/headless'
import { CLI } from './cli'

const { Terminal } = xtermHeadless

/** A running CLI on a pseudo-terminal and the screen it draws. */
export interface PtyScreen {
  /** The visible screen, one string per row (trailing spaces trimmed). */
  lines(): string[]
  /** The visible screen as one text. */
  text(): string
  /** Type `data` (keys as the terminal sends them, e.g. '\r', '\x1b[Z' for Shift+Tab). */
  write(data: string): void
  /** Resize the pseudo-terminal and the headless terminal. */
  resize(cols: number, rows: number): void
  /** Resolve once `pred(screen lines)` holds (checked on each output and every 50 ms); reject after `timeoutMs` with the screen. */
  waitFor(pred: string | RegExp | ((lines: string[]) => boolean), timeoutMs?: number): Promise<void>
  /** Save the screen as test-results/tui/NAME.txt (and the last 200 KB the program wrote as NAME.raw). */
  dump(name: string): string
  /** Exit code once the process ended. */
  exited: Promise<number>
  /**
   * End the CLI if it still runs: SIGTERM first, on which it closes its session and removes its
   * guests (the checkpoint guest writes into CORTEX_HOME, and a killed CLI leaves that to its
   * detached watchdog, later); after {@link TERM_GRACE_MS} SIGKILL to its whole group (the pty makes
   * it a group leader, so a git or docker child it spawned goes too). Resolves with the exit code
   * once it ended, so a test's cleanup removes CORTEX_HOME only after nothing writes there any more.
   */
  kill(): Promise<number>
}

/** How long {@link PtyScreen.kill} waits for the CLI to close its session after SIGTERM before SIGKILL (ms; a hang guard: a close takes ~1 s). */
export const TERM_GRACE_MS = 20_000

/** Start `cortex ...args` on a `cols`×`rows` pseudo-terminal with `env` added to the environment. */
export function startPtyCli(args: string[], opts: { cols: number; rows: number; env?: NodeJS.ProcessEnv; cwd?: string }): PtyScreen {
  const term = new Terminal({ cols: opts.cols, rows: opts.rows, allowProposedApi: true, scrollback: 1000 })
  const p = pty.spawn(process.execPath, [CLI, ...args], {
    name: 'xterm-256color',
    cols: opts.cols,
    rows: opts.rows,
    cwd: opts.cwd ?? process.cwd(),
    env: { ...process.env, ...opts.env, TERM: 'xterm-256color' }
  })
  let pending = Promise.resolve()
  let raw = ''
  p.onData((d) => {
    raw = (raw + d).slice(-200_000)
    pending = pending.then(() => new Promise<void>((r) => term.write(d, r)))
  })
  // resolved once what the program wrote before it exited is on the screen (the writes queue in `pending`)
  const exited = new Promise<number>((r) => p.onExit(({ exitCode }) => void pending.then(() => r(exitCode))))
  let alive = true
  void exited.then(() => (alive = false))
  const lines = (): string[] => {
    const buf = term.buffer.active
    const out: string[] = []
    for (let i = 0; i < term.rows; i++) out.push(buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '')
    return out
  }
  const screen: PtyScreen = {
    lines,
    text: () => lines().join('\n'),
    write: (d) => p.write(d),
    resize: (cols, rows) => {
      p.resize(cols, rows)
      term.resize(cols, rows)
    },
    waitFor: (pred, timeoutMs = 30_000) => {
      const test = typeof pred === 'function' ? pred : (l: string[]) => (typeof pred === 'string' ? l.join('\n').includes(pred) : pred.test(l.join('\n')))
      return new Promise((resolve, reject) => {
        const end = Date.now() + timeoutMs
        const tick = (): void => {
          void pending.then(() => {
            if (test(lines())) return resolve()
            if (Date.now() > end) return reject(new Error(`screen never matched ${String(pred)} within ${timeoutMs} ms:\n${lines().join('\n')}`))
            setTimeout(tick, 50)
          })
        }
        tick()
      })
    },
    dump: (name) => {
      const dir = resolve('test-results', 'tui')
      mkdirSync(dir, { recursive: true })
      const file = join(dir, `${name}.txt`)
      writeFileSync(file, `${term.cols}x${term.rows}\n${lines().join('\n')}\n`)
      writeFileSync(join(dir, `${name}.raw`), raw)
      return file
    },
    exited,
    kill: async () => {
      if (!alive) return exited
      p.kill('SIGTERM')
      let timer: NodeJS.Timeout | undefined
      const graceful = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), TERM_GRACE_MS)))])
      clearTimeout(timer)
      if (!graceful && alive) {
        try {
          process.kill(-p.pid, 'SIGKILL')
        } catch {
          p.kill('SIGKILL') // not a group leader (or already gone): the process alone
        }
      }
      return exited
    }
  }
  return screen
}
