/**
 * Runs the built `cortex` CLI (bin/cortex.cjs → out/cli/index.mjs) as a child process and collects
 * its output; `--json` output is parsed into event envelopes.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { EventEnvelope } from '../../src/shared/events'

/** Path of the CLI launcher. */
export const CLI = resolve('bin/cortex.cjs')

/** Output of one CLI run. `events` holds the parsed JSON lines of stdout (when --json). */
export interface CliRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  events: EventEnvelope[]
}

/**
 * Run `cortex ...args`. Throws at once if the CLI is not built (run `npm run build`).
 * @param opts.env extra environment; `onStdout` sees output as it arrives (e.g. to send SIGINT)
 */
export function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; onStdout?: (chunk: string, child: ReturnType<typeof spawn>) => void } = {}
): Promise<CliRun> {
  if (!existsSync(resolve('out/cli/index.mjs'))) throw new Error('the CLI is not built: run `npm run build` first')
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c
      opts.onStdout?.(c, child)
    })
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    child.on('error', fail)
    child.on('close', (code, signal) => {
      const events = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as EventEnvelope)
      done({ code, signal, stdout, stderr, events })
    })
  })
}
