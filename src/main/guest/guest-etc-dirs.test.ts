/**
 * The guest's per-session passwd folders: named with their owner's pid, removed by the orphan
 * reaper with the guest it reaps (real Docker), and swept when their owner process is gone and no
 * container mounts them (no Docker needed).
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ensureAgentBundle, makeTestRepo } from '../../../test/support/guest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { passwdFiles } from './container-spec'
import { DockerGuestProvider, reapOrphanGuests } from './docker-guest'
import { guestEtcDirPrefix, GUEST_ETC_PREFIX, isGuestEtcDir, removeStaleGuestEtcDirs, UNOWNED_ETC_DIR_STALE_MS } from './paths'

/** The pid of a process that has exited (a finished child's). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  return Number(r.stdout)
}

const made: string[] = []
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

describe('guest passwd folders', () => {
  it('are named with the owning pid in the OS temp folder', () => {
    const etc = passwdFiles(1000, 1000)
    made.push(etc.dir)
    expect(dirname(etc.dir)).toBe(tmpdir())
    expect(basename(etc.dir).startsWith(`${GUEST_ETC_PREFIX}${process.pid}-`)).toBe(true)
    expect(isGuestEtcDir(etc.dir)).toBe(true)
    expect(isGuestEtcDir(join(tmpdir(), 'elsewhere', basename(etc.dir)))).toBe(false)
  })

  it('of a dead process are swept unless a container mounts them; live owners and other folders are kept', () => {
    const dead = deadPid()
    const gone = mkdtempSync(guestEtcDirPrefix(dead))
    const mounted = mkdtempSync(guestEtcDirPrefix(dead))
    const live = mkdtempSync(guestEtcDirPrefix(process.pid))
    const legacyOld = mkdtempSync(join(tmpdir(), GUEST_ETC_PREFIX)) // made before pids were recorded
    const legacyNew = mkdtempSync(join(tmpdir(), GUEST_ETC_PREFIX))
    const old = (Date.now() - UNOWNED_ETC_DIR_STALE_MS - 60_000) / 1000
    utimesSync(legacyOld, old, old)
    const other = join(tmpdir(), `cortex-other-${randomBytes(3).toString('hex')}`)
    mkdirSync(other)
    made.push(gone, mounted, live, legacyOld, legacyNew, other)

    const removed = removeStaleGuestEtcDirs(new Set([mounted]))
    expect(removed).toContain(gone)
    expect(removed).toContain(legacyOld)
    expect(existsSync(gone)).toBe(false)
    expect(existsSync(legacyOld)).toBe(false)
    for (const kept of [mounted, live, legacyNew, other]) expect(existsSync(kept), kept).toBe(true)
  })
})

describe.skipIf(skipWithoutDocker())('the orphan reaper (real Docker)', () => {
  const runLabel = { 'dev.cortex.test': '1', 'dev.cortex.test-etc': randomBytes(4).toString('hex') }
  const provider = new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: runLabel })
  afterAll(async () => {
    await reapOrphanGuests([], { labels: runLabel }).catch(() => undefined) // cleanup only: the test asserts removal itself
  })

  it('removes the passwd folder of each guest it reaps, and keeps a live session\'s', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const orphan = await provider.start({ sessionId: 'etc-orphan', repo })
    const kept = await provider.start({ sessionId: 'etc-live', repo })
    const etcOf = async (id: string): Promise<string> => {
      const info = await provider.docker.getContainer(id).inspect()
      const source = info.Mounts.find((m) => m.Destination === '/etc/passwd')?.Source
      if (!source) throw new Error('no /etc/passwd bind')
      return dirname(source)
    }
    const orphanEtc = await etcOf(orphan.id)
    const keptEtc = await etcOf(kept.id)
    expect(existsSync(orphanEtc)).toBe(true)

    const removed = await reapOrphanGuests(['etc-live'], { labels: runLabel })
    expect(removed).toEqual([orphan.id])
    expect(existsSync(orphanEtc)).toBe(false)
    expect(existsSync(keptEtc)).toBe(true)
    await kept.close()
    expect(existsSync(keptEtc)).toBe(false)
  })
})
