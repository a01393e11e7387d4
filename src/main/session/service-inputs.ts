/**
 * The service's checks of its inputs: the session cap from the environment and a repository path
 * (absolute, existing, a folder; its real path).
 */
import { realpathSync, statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { CortexError } from '../../shared/errors'

/** Env var: the most sessions open at once per process (see SessionServiceOptions.maxSessions). */
export const MAX_SESSIONS_ENV = 'CORTEX_MAX_SESSIONS'

/** {@link MAX_SESSIONS_ENV} as a whole number from 1 to 256, default 8. @throws CortexError('invalid_input') otherwise */
export function maxSessionsFromEnv(): number {
  const raw = process.env[MAX_SESSIONS_ENV]
  if (raw === undefined || raw.trim() === '') return 8
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new CortexError('invalid_input', `${MAX_SESSIONS_ENV}="${raw}" must be a whole number from 1 to 256`)
  return n
}

/** Resolve and check a repository path: absolute, existing, a folder. Returns its real path. */
export function resolveRepo(repo: string): string {
  if (!isAbsolute(repo)) throw new CortexError('repo_invalid', `repository path must be absolute: ${repo}`)
  let real: string
  try {
    real = realpathSync(repo)
  } catch {
    throw new CortexError('repo_invalid', `repository folder does not exist: ${repo}`)
  }
  if (!statSync(real).isDirectory()) throw new CortexError('repo_invalid', `repository path is not a folder: ${repo}`)
  return real
}

/** @throws CortexError('session_limit') when `open` sessions are already at the cap `max` */
export function checkSessionCap(open: number, max: number): void {
  if (open < max) return
  throw new CortexError('session_limit', `${open} sessions are open, the most this process allows (${MAX_SESSIONS_ENV}=${max}); close one first or raise ${MAX_SESSIONS_ENV}`)
}
