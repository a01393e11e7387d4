/**
 * Loads the interactive UI's module. Ink decides once, when it is first imported, whether it runs
 * "in CI" (the `is-in-ci` package: `CI` or `CONTINUOUS_INTEGRATION` set and not 0/false); then it
 * draws nothing until the app exits. `cortex` opens the UI only on a terminal, where a person is
 * looking at it, so the flags are hidden from that one import and restored at once: a shell that
 * exports CI=true (and the CI run of this project's own pseudo-terminal test) gets a live screen.
 */
import type { startTui } from './start-tui'

/** Environment variables `is-in-ci` reads. */
const CI_FLAGS = ['CI', 'CONTINUOUS_INTEGRATION'] as const

/**
 * Import ./start-tui (and with it Ink) with the CI flags hidden from Ink's import-time check.
 * @returns the module's `startTui`
 */
export async function loadTui(): Promise<typeof startTui> {
  const saved = CI_FLAGS.map((k) => [k, process.env[k]] as const)
  for (const k of CI_FLAGS) delete process.env[k]
  try {
    return (await import('./start-tui')).startTui
  } finally {
    for (const [k, v] of saved) if (v !== undefined) process.env[k] = v
  }
}
