/**
 * `cortex guest build`: build the guest image offline when missing (never rebuilding an existing
 * recipe-hash tag), printing progress lines. Used by .ci/run and by users before first use.
 * `cortex guest setup`: the repository's own environment (devcontainer.json) shown, enabled with
 * --trust, and prepared now (ADR 0038).
 */
import { guestBuildMain, guestSetupMain } from '../main/session'
import { askYesNo, canAsk } from './confirm-hash'
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
export async function guestSetupCommand(opts: { repo?: string; rebuild?: boolean; trust?: boolean; hash?: string }): Promise<number> {
  const stop = new AbortController()
  const onSigint = (): void => stop.abort()
  process.once('SIGINT', onSigint)
  try {
    const confirm = canAsk(process.stdin, process.stderr) ? { confirm: () => askYesNo('Enable this environment exactly as shown?', process.stdin, process.stderr) } : {}
    return await guestSetupMain({ ...opts, ...confirm, dataDir: dataDir(), signal: stop.signal }, (line) => process.stderr.write(`${terminalSafe(line)}\n`))
  } finally {
    process.off('SIGINT', onSigint)
  }
}
