/**
 * Paths the CLI needs: the data folder (CORTEX_HOME, default ~/.cortex) and the built renderer.
 */
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The data folder: `CORTEX_HOME` if set, else `~/.cortex`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CORTEX_HOME ? resolve(env.CORTEX_HOME) : join(homedir(), '.cortex')
}

/** Folder of the built renderer (out/renderer), located next to this built file (out/cli/). */
export function rendererDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', 'renderer')
}
