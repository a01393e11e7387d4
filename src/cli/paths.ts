/**
 * Paths the CLI needs: the data folder (CORTEX_HOME, default ~/.cortex), a repository's real path and
 * the built renderer.
 */
import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The data folder: `CORTEX_HOME` if set, else `~/.cortex`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CORTEX_HOME ? resolve(env.CORTEX_HOME) : join(homedir(), '.cortex')
}

/**
 * The real path of repository folder `repo` (default: the current folder), as the session service
 * keys rules and trust by it; the absolute path when it cannot be resolved (a missing folder).
 */
export function repoPath(repo: string | undefined): string {
  const abs = resolve(repo ?? '.')
  try {
    return realpathSync(abs)
  } catch {
    return abs
  }
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
