/**
 * Paths the CLI needs: the data folder (CORTEX_HOME, default ~/.cortex) and the built renderer.
 */
import { homedir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The data folder: `CORTEX_HOME` if set, else `~/.cortex`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CORTEX_HOME ? resolve(env.CORTEX_HOME) : join(homedir(), '.cortex')
}

/**
 * Folder of the built renderer (out/renderer). This module is built into out/cli/ or, since the
 * commands load lazily (ADR 0015), into a chunk in out/cli/chunks/: the path is taken from out/.
 */
export function rendererDir(moduleUrl: string = import.meta.url): string {
  const here = dirname(fileURLToPath(moduleUrl))
  const cliDir = basename(here) === 'chunks' ? dirname(here) : here
  return resolve(cliDir, '..', 'renderer')
}
