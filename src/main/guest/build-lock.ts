/**
 * The cross-process guest-image build lock: a folder `$TMPDIR/cortex-guest-build-<tag>.lock` holding
 * an `owner` file with the builder's pid. A lock whose owner is gone (a Cortex killed mid-build or
 * mid-check) is stale: the next build takes it over and the start-up sweep removes it, so a killed
 * process never leaves the lock behind for good.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pidAlive } from './paths'

const PREFIX = 'cortex-guest-build-'
/** A lock older than this counts as abandoned whatever its owner (ms). */
export const STALE_BUILD_LOCK_MS = 20 * 60_000
/** A lock with no owner file yet (its maker was killed between mkdir and the write) counts as stale after this (ms). */
const UNOWNED_LOCK_MS = 10_000

/** The lock folder for image `tag` (characters outside `[A-Za-z0-9_.-]` become `_`). */
export function buildLockPath(tag: string): string {
  return join(tmpdir(), `${PREFIX}${tag.replace(/[^A-Za-z0-9_.-]/g, '_')}.lock`)
}

/**
 * Take the lock for `tag`: true when this process now holds it (the owner file names this pid),
 * false when another live holder has it. A stale lock (see module comment) is removed and taken.
 */
export function tryTakeBuildLock(tag: string, now: number = Date.now()): boolean {
  const lock = buildLockPath(tag)
  try {
    mkdirSync(lock)
  } catch {
    if (!isStale(lock, now)) return false
    rmSync(lock, { recursive: true, force: true })
    try {
      mkdirSync(lock)
    } catch {
      return false // another process took it over first
    }
  }
  writeFileSync(join(lock, 'owner'), String(process.pid))
  return true
}

/** Release the lock for `tag` (no-op when it is gone). */
export function releaseBuildLock(tag: string): void {
  rmSync(buildLockPath(tag), { recursive: true, force: true })
}

function isStale(lock: string, now: number): boolean {
  const st = statSync(lock, { throwIfNoEntry: false })
  if (!st) return false // removed meanwhile: the next mkdir decides
  if (now - st.mtimeMs > STALE_BUILD_LOCK_MS) return true
  let owner: number
  try {
    owner = Number(readFileSync(join(lock, 'owner'), 'utf8'))
  } catch {
    return now - st.mtimeMs > UNOWNED_LOCK_MS
  }
  return !Number.isInteger(owner) || owner <= 0 || !pidAlive(owner)
}

/**
 * Remove every stale build lock in the temp folder (start-up sweep; the test run's leak check does
 * the same). Returns the folders removed.
 */
export function removeStaleBuildLocks(now: number = Date.now()): string[] {
  let names: string[]
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(PREFIX) && n.endsWith('.lock'))
  } catch {
    return []
  }
  const removed: string[] = []
  for (const name of names) {
    const lock = join(tmpdir(), name)
    if (!isStale(lock, now)) continue
    rmSync(lock, { recursive: true, force: true })
    removed.push(lock)
  }
  return removed
}
