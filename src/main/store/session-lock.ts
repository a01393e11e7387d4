/**
 * One process per session: a `lock` file in the session folder names its holder (pid, the process's
 * start time from /proc, host, a random token). It is created atomically (written to a private temp
 * file, then hard-linked into place, which fails if a lock exists). A lock whose holder is gone — a
 * crash, kill -9, or a pid reused by another process — is stale and taken over, so a crash can never
 * leave a session stuck.
 */
import { randomUUID } from 'node:crypto'
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { CortexError } from '../../shared/errors'

/** File name of the lock inside a session folder. */
export const LOCK_FILE = 'lock'

/** What a lock file holds. `start` is the holder's start time in clock ticks since boot (Linux), else null. */
export interface LockOwner {
  pid: number
  start: string | null
  host: string
  token: string
}

/** A held lock; `release` removes the file if it is still ours. Idempotent. */
export interface SessionLock {
  readonly path: string
  release(): void
}

/** Start time of process `pid` (field 22 of /proc/<pid>/stat), or null where /proc is absent or the process is gone. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] ?? null
  } catch {
    return null // no such process (or no /proc): no start time to compare
  }
}

/** Whether the process that wrote `owner` still runs (same host: pid alive and, where known, same start time). */
export function isLockOwnerAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true // cannot check another machine's processes: assume held
  try {
    process.kill(owner.pid, 0)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false // ESRCH: no such process
  }
  if (owner.start === null) return true
  const now = processStartTime(owner.pid)
  return now === null || now === owner.start
}

function readOwner(path: string): { text: string; owner: LockOwner | null } | null {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return null // gone meanwhile
  }
  try {
    const o = JSON.parse(text) as Partial<LockOwner>
    if (typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.token === 'string') {
      return { text, owner: { pid: o.pid, host: o.host, token: o.token, start: typeof o.start === 'string' ? o.start : null } }
    }
  } catch {
    // damaged: treated as stale below
  }
  return { text, owner: null }
}

/**
 * Take the lock of the session whose folder is `dir`.
 * @param sessionId used in the error message
 * @throws CortexError('session_locked') when a live process holds it, naming that process
 */
export function acquireSessionLock(dir: string, sessionId: string): SessionLock {
  const path = join(dir, LOCK_FILE)
  const me: LockOwner = { pid: process.pid, start: processStartTime(process.pid), host: hostname(), token: randomUUID() }
  const tmp = join(dir, `${LOCK_FILE}.${me.token}.tmp`)
  writeFileSync(tmp, JSON.stringify(me) + '\n', { mode: 0o600 })
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(tmp, path)
        return makeLock(path, me.token)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      }
      const held = readOwner(path)
      if (!held) continue // released meanwhile: try again
      if (held.owner && isLockOwnerAlive(held.owner)) {
        const who = held.owner.pid === process.pid && held.owner.host === me.host ? 'this process' : `process ${held.owner.pid} on ${held.owner.host}`
        throw new CortexError(
          'session_locked',
          `session ${sessionId} is already open in ${who}; close it there first (the lock is ${path})`
        )
      }
      // stale: remove it only if it is still the file we judged (another taker may have replaced it)
      const again = readOwner(path)
      if (again && again.text === held.text) {
        try {
          unlinkSync(path)
        } catch {
          // removed by another taker
        }
      }
    }
    throw new CortexError('session_locked', `session ${sessionId}: could not take its lock ${path} (contended)`)
  } finally {
    try {
      unlinkSync(tmp)
    } catch {
      // already gone
    }
  }
}

function makeLock(path: string, token: string): SessionLock {
  let held = true
  return {
    path,
    release() {
      if (!held) return
      held = false
      const now = readOwner(path)
      if (now?.owner?.token !== token) return // taken over (we were judged stale): not ours to remove
      try {
        unlinkSync(path)
      } catch {
        // already gone
      }
    }
  }
}
