// The guest-image build lock: a live holder keeps it, a dead holder's lock is taken over and swept
// (a CLI killed between taking the lock and checking the image left it behind in CI).
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { buildLockPath, releaseBuildLock, removeStaleBuildLocks, tryTakeBuildLock } from './build-lock'

const tag = `cortex-guest-locktest:${randomBytes(6).toString('hex')}`
afterEach(() => releaseBuildLock(tag))

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  return Number(r.stdout)
}

describe('build lock', () => {
  it('is held by its taker and refused to a second taker while the holder lives', () => {
    expect(tryTakeBuildLock(tag)).toBe(true)
    expect(readFileSync(join(buildLockPath(tag), 'owner'), 'utf8')).toBe(String(process.pid))
    expect(tryTakeBuildLock(tag)).toBe(false)
    expect(removeStaleBuildLocks()).not.toContain(buildLockPath(tag))
    releaseBuildLock(tag)
    expect(existsSync(buildLockPath(tag))).toBe(false)
  })

  it('a dead holder’s lock is taken over, and swept at start-up', () => {
    mkdirSync(buildLockPath(tag))
    writeFileSync(join(buildLockPath(tag), 'owner'), String(deadPid()))
    expect(tryTakeBuildLock(tag)).toBe(true)
    writeFileSync(join(buildLockPath(tag), 'owner'), String(deadPid()))
    expect(removeStaleBuildLocks()).toContain(buildLockPath(tag))
    expect(existsSync(buildLockPath(tag))).toBe(false)
  })

  it('a lock without an owner file is stale only after a grace period', () => {
    mkdirSync(buildLockPath(tag))
    expect(removeStaleBuildLocks()).not.toContain(buildLockPath(tag))
    expect(removeStaleBuildLocks(Date.now() + 60_000)).toContain(buildLockPath(tag))
  })
})
