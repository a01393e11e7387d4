/**
 * WarmGuestPool against the real Docker engine: a prepared guest is taken at once for the same
 * repository and policy (and replaced), another repository or policy falls back to a cold start
 * and re-keys the pool, a dead pooled guest is skipped, size 0 disables it, and close() leaves no
 * container behind (checked by label).
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { ensureAgentBundle, makeTestRepo } from '../../../test/support/guest'
import { DockerGuestProvider, reapOrphanGuests } from './docker-guest'
import type { Guest } from './guest'
import { WarmGuestPool } from './warm-pool'

describe.skipIf(skipWithoutDocker())('WarmGuestPool (real Docker)', () => {
  const runLabel = { 'dev.cortex.test': '1', 'dev.cortex.test-pool': randomBytes(4).toString('hex') }
  const provider = new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: runLabel })
  const taken: Guest[] = []
  let repoA: string
  let repoB: string
  const ours = async (): Promise<string[]> =>
    (await provider.docker.listContainers({ all: true, filters: { label: Object.entries(runLabel).map(([k, v]) => `${k}=${v}`) } })).map((c) => c.Id)

  beforeAll(async () => {
    repoA = await makeTestRepo({ 'a.txt': 'a\n' })
    repoB = await makeTestRepo({ 'b.txt': 'b\n' })
  })
  afterAll(async () => {
    await Promise.allSettled(taken.map((g) => g.close()))
    await reapOrphanGuests([], { labels: runLabel }).catch(() => undefined)
  })

  it('hands out a prepared guest at once, replaces it, re-keys on another repo, and close() leaks nothing', async () => {
    const pool = new WarmGuestPool(provider, { size: 1 })
    pool.prepare(repoA)
    await pool.settled()
    expect(pool.readyCount).toBe(1)
    const [warmId] = pool.ids()

    const t0 = performance.now()
    const g = await pool.start({ sessionId: 's1', repo: repoA })
    const r = await g.read(join(repoA, 'a.txt'))
    const warmAttachMs = performance.now() - t0
    taken.push(g)
    expect(g.id).toBe(warmId)
    expect(Buffer.from(r.dataB64, 'base64').toString()).toBe('a\n')
    expect(warmAttachMs).toBeLessThan(1000) // typically ~5 ms; only a hang guard here (see bench/guest)

    await pool.settled()
    expect(pool.readyCount).toBe(1) // replaced in the background
    expect(pool.ids()).not.toContain(warmId)

    // Another policy for the same repo: not the warm one (its mount differs); the pool re-keys.
    const ro = await pool.start({ sessionId: 's2', repo: repoA, sandbox: 'read-only' })
    taken.push(ro)
    expect(ro.sandbox).toBe('read-only')
    await pool.settled()
    const roWarm = pool.ids()[0]
    // Another repository: cold start, then the pool holds a guest for repo B only.
    const b = await pool.start({ sessionId: 's3', repo: repoB })
    taken.push(b)
    expect(b.workspace).toBe(repoB)
    await pool.settled()
    expect(pool.readyCount).toBe(1)
    expect(pool.ids()).not.toContain(roWarm)

    // A pooled guest that died is skipped, never handed out.
    const [poolB] = pool.ids()
    await provider.docker.getContainer(poolB as string).kill()
    const fresh = await pool.start({ sessionId: 's4', repo: repoB })
    taken.push(fresh)
    expect(fresh.id).not.toBe(poolB)
    expect((await fresh.read(join(repoB, 'b.txt'))).size).toBe(2)

    await pool.close()
    await pool.close()
    const left = await ours()
    expect(left.sort()).toEqual(taken.filter((x) => !x.dead).map((x) => x.id).sort())
    for (const x of taken.splice(0)) await x.close()
    expect(await ours()).toEqual([])
  })

  it('size 0 disables the pool', async () => {
    const pool = new WarmGuestPool(provider, { size: 0 })
    pool.prepare(repoA)
    expect(pool.readyCount).toBe(0)
    const g = await pool.start({ sessionId: 'z', repo: repoA })
    taken.push(g)
    await pool.settled()
    expect(pool.readyCount).toBe(0)
    expect(await ours()).toEqual([g.id])
    await pool.close()
  })
})
