/**
 * `cortex guest build`: build the guest image offline when missing (never rebuilding an existing
 * recipe-hash tag), printing progress lines. Used by .ci/run and by users before first use.
 */
import { guestBuildMain } from '../main/session'

/** Build the guest image; resolves with the exit status (0 ready, non-zero on failure). */
export async function guestBuildCommand(): Promise<number> {
  return guestBuildMain((line) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`))
}
