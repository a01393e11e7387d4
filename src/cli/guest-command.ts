/**
 * `cortex guest build`: build the guest image offline when missing (never rebuilding an existing
 * recipe-hash tag), printing progress lines. Used by .ci/run and by users before first use.
 * `cortex guest setup`: the repository's own environment (devcontainer.json) shown, enabled with
 * --trust, and prepared now (ADR 0038). `cortex guest prune`: environment images and dependency volumes removed (ADR 0042).
 */
import { guestBuildMain, guestPruneMain, guestSetupMain } from '../main/session'
import { askYesNo, canAsk } from './confirm-hash'
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { dataDir } from './paths'
import { terminalSafe } from './terminal-safe'

/** Build the guest image; resolves with the exit status (0 ready, non-zero on failure). */
export async function guestBuildCommand(): Promise<number> {
  return guestBuildMain((line) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`))
}

/**
 * `cortex guest setup [--repo DIR] [--rebuild] [--trust [--hash H]]`: resolves with the exit status
 * (0 ready). `--trust` enables the definition printed: the one whose hash is H, or on a terminal the
 * one printed before a `[y/N]` answered yes (guest-setup.ts). Ctrl-C stops a running build or setup
 * command (the setup guest is removed, nothing is cached).
 */
export async function guestSetupCommand(opts: { repo?: string; rebuild?: boolean; trust?: boolean; hash?: string; dependencyVolumes?: 'auto' | 'on' | 'off' }): Promise<number> {
  const stop = new AbortController()
  const onSigint = (): void => stop.abort()
  process.once('SIGINT', onSigint)
  try {
    const confirm = canAsk(process.stdin, process.stderr) ? { confirm: () => askYesNo('Enable this environment exactly as shown?', process.stdin, process.stderr) } : {}
    const { dependencyVolumes, ...rest } = opts
    return await guestSetupMain({ ...rest, ...confirm, saveDependencyVolumes: dependencyVolumes, dataDir: dataDir(), signal: stop.signal }, (line) => process.stderr.write(`${terminalSafe(line)}\n`))
  } finally {
    process.off('SIGINT', onSigint)
  }
}

/** `cortex guest prune [--repo DIR]`: resolves with the exit status (0 done, 1 no engine). */
export async function guestPruneCommand(opts: { repo?: string }): Promise<number> {
  return guestPruneMain({ repo: opts.repo ? realOrResolved(opts.repo) : undefined }, (line) => process.stderr.write(`${terminalSafe(line)}\n`))
}

/** `dir` by its real path (as sessions label what they make), or resolved when it no longer exists. */
function realOrResolved(dir: string): string {
  try {
    return realpathSync(dir)
  } catch {
    return resolve(dir)
  }
}
