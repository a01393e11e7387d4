/**
 * Vitest globalSetup: what a run leaves in the OS temp directory. Before the run it lists the
 * entries whose names carry the project's prefix (`cortex-`); after it, any new such entry is a
 * folder or file some test (or the product it drove) made and did not remove. Under CI=true that
 * fails the run; otherwise it is reported on stderr. Only `cortex-*` names count, so files other
 * programs make meanwhile do not; another Cortex run on the same machine at the same time can still
 * show up here, which is why only CI (one run per machine) fails on it.
 */
import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { removeStaleGuestEtcDirs } from '../../src/main/guest/paths'
import { removeStaleBuildLocks } from '../../src/main/guest/build-lock'
import { IN_CI } from './requirements'

/** Names of the project's temporary entries: `tempDir('cortex-…')`, makeTestRepo's cortex-test-*, the product's own. */
export const PROJECT_TEMP_PREFIX = /^cortex-/

/** The temp folders checked: the OS one and /tmp (makeTestRepo and Docker bind mounts use /tmp literally). */
function tempRoots(): string[] {
  return [...new Set([tmpdir(), '/tmp'])]
}

function projectEntries(): string[] {
  return tempRoots().flatMap((root) => {
    try {
      return readdirSync(root).filter((n) => PROJECT_TEMP_PREFIX.test(n)).map((n) => join(root, n))
    } catch {
      return []
    }
  })
}

/** Set while a snapshot is held: each vitest project runs the globalSetup, one run checks once. */
const HELD = Symbol.for('cortex.temp-leak-check')

/**
 * Snapshot the project's temp entries; the returned teardown compares (once per run, whatever the
 * number of vitest projects).
 * @throws Error from the teardown, under CI=true, naming every entry the run left behind (and
 *   sets the exit code: vitest only logs a teardown's error)
 */
export default function setup(): () => void {
  const holder = globalThis as { [HELD]?: boolean }
  if (holder[HELD]) return () => {}
  holder[HELD] = true
  const before = new Set(projectEntries())
  return () => {
    holder[HELD] = false
    // A guest's passwd folder whose Cortex process was killed (-9, in the guest-lifetime tests) is
    // removed by the product at its next start; do now what that start would (dead owners only).
    removeStaleGuestEtcDirs(new Set())
    removeStaleBuildLocks() // an image build lock of a CLI killed mid-check: its next start would take it over
    const left = projectEntries().filter((p) => !before.has(p))
    if (left.length === 0) return
    const shown = left.slice(0, 40).join('\n  ')
    const message = `${left.length} temporary entr${left.length === 1 ? 'y' : 'ies'} left behind by this run (remove what a test creates; test/support/temp-dir.ts):\n  ${shown}${left.length > 40 ? '\n  …' : ''}\n`
    if (IN_CI) {
      process.exitCode = 1
      throw new Error(message)
    }
    process.stderr.write(`temp-leak-check: ${message}`)
  }
}
