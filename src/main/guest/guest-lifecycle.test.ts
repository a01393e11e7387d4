/**
 * Lifecycle tests against the real Docker engine: clear start errors, never a hang (daemon down via
 * DOCKER_HOST unix:// and tcp://, a missing image, an entrypoint that exits at once, a user image
 * lacking rg), four starts at once each succeeding or failing on its own, the reaper never
 * touching unlabelled containers, the sandbox policies (read-only mount, network by inspection
 * only) and build-progress throttling. Test images are committed from the local guest image
 * (no registry) and removed afterwards.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { ensureAgentBundle, makeTestRepo } from '../../../test/support/guest'
import { DockerGuestProvider, LABEL_MANAGED, LABEL_SANDBOX, LABEL_SESSION, reapOrphanGuests, throttleBuildProgress } from './docker-guest'
import type { Guest } from './guest'
import { ensureGuestImage, guestImageTag } from './image'

/** Hang guard for a start that fails before any container exists (no daemon, no image): tens of ms expected. */
const NO_DAEMON_GUARD_MS = 5_000
/** Hang guard for a start whose container runs and fails (create, start, exit, logs): ~2 s expected. */
const FAILED_START_GUARD_MS = 20_000

function docker(...args: string[]): string {
  const r = spawnSync('docker', args, { encoding: 'utf8', timeout: 60_000 })
  if (r.status !== 0) throw new Error(`docker ${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout.trim()
}

/** Commit a variant of the guest image: run `cmd` as root in a container of it, then commit with `changes`. */
function commitVariant(tag: string, cmd: string[], changes: string[] = []): void {
  const name = `cortex-test-variant-${randomBytes(4).toString('hex')}`
  docker('run', '--name', name, '--network', 'none', '--user', '0:0', guestImageTag(), ...cmd)
  try {
    docker('commit', ...changes.flatMap((c) => ['--change', c]), name, tag)
  } finally {
    docker('rm', '-f', name)
  }
}

it('throttles build progress lines, always passing ==> steps', () => {
  let t = 0
  const seen: string[] = []
  const push = throttleBuildProgress((s, d) => seen.push(`${s}:${d}`), () => t)
  for (const [at, line] of [[0, 'a'], [100, 'b'], [200, '==> step'], [300, 'c'], [700, 'd'], [800, 'e']] as const) {
    t = at
    push(line)
  }
  expect(seen).toEqual(['building_image:a', 'building_image:==> step', 'building_image:d'])
})

describe.skipIf(skipWithoutDocker())('guest lifecycle (real Docker)', () => {
  const suffix = randomBytes(4).toString('hex')
  const noRg = `cortex-test-norg:${suffix}`
  const exits = `cortex-test-exits:${suffix}`
  const runLabel = { 'dev.cortex.test': '1', 'dev.cortex.test-run': suffix }
  const agentPath = ensureAgentBundle()
  const provider = new DockerGuestProvider({ agentPath, labels: runLabel })
  const guests: Guest[] = []
  let repo: string

  beforeAll(async () => {
    await ensureGuestImage()
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
    commitVariant(noRg, ['rm', '-f', '/usr/bin/rg'])
    commitVariant(exits, ['true'], ['ENTRYPOINT ["sh", "-c", "echo entrypoint-boom >&2; exit 3"]'])
  })
  afterAll(async () => {
    await Promise.allSettled(guests.map((g) => g.close()))
    await reapOrphanGuests([], { labels: runLabel }).catch(() => undefined)
    spawnSync('docker', ['rmi', '-f', noRg, exits])
  })

  /**
   * Assert that a start fails with `match` instead of hanging: it rejects within `guardMs`, a hang
   * guard about 10x the expected time, not a speed figure (the old code waited on Docker's retries).
   */
  async function failsWithoutHanging(p: Promise<unknown>, match: Record<string, unknown>, guardMs: number): Promise<void> {
    const t0 = Date.now()
    await expect(p).rejects.toMatchObject(match)
    const ms = Date.now() - t0
    if (process.env.CORTEX_PRINT_TIMINGS) process.stdout.write(`[guest-lifecycle] ${String(match.code)} after ${ms} ms (guard ${guardMs} ms)\n`)
    expect(ms).toBeLessThan(guardMs)
  }

  it('a daemon that is down: docker_unavailable naming DOCKER_HOST within 5 s (unix:// and tcp://)', async () => {
    const server = createServer()
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    await new Promise((r) => server.close(r)) // a port nobody listens on
    const saved = process.env.DOCKER_HOST
    try {
      for (const host of ['unix:///tmp/cortex-no-docker.sock', `tcp://127.0.0.1:${port}`]) {
        process.env.DOCKER_HOST = host
        const p = new DockerGuestProvider({ agentPath })
        await failsWithoutHanging(p.start({ sessionId: 's', repo }), { code: 'docker_unavailable', message: expect.stringContaining(`DOCKER_HOST=${host}`) }, NO_DAEMON_GUARD_MS)
      }
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST
      else process.env.DOCKER_HOST = saved
    }
  })

  it('a missing image that cannot be built: image_unavailable within 5 s', async () => {
    for (const opts of [{ image: `cortex-test-missing:${suffix}` }, { image: `cortex-test-missing:${suffix}`, buildImage: false }]) {
      const p = new DockerGuestProvider({ agentPath, labels: runLabel, ...opts })
      await failsWithoutHanging(p.start({ sessionId: 's', repo }), { code: 'image_unavailable', message: expect.stringContaining('is missing') }, NO_DAEMON_GUARD_MS)
    }
  })

  it('an entrypoint that exits at once: guest_failed with exit code and last log lines, nothing left', async () => {
    const p = new DockerGuestProvider({ agentPath, labels: runLabel, image: exits })
    await failsWithoutHanging(p.start({ sessionId: `exits-${suffix}`, repo }), {
      code: 'guest_failed',
      message: expect.stringMatching(/exited with code 3; last log lines: entrypoint-boom/)
    }, FAILED_START_GUARD_MS)
    expect(await provider.docker.listContainers({ all: true, filters: { label: [`${LABEL_SESSION}=exits-${suffix}`] } })).toEqual([])
  })

  it('a user image lacking rg: image_unavailable naming what is missing', async () => {
    const p = new DockerGuestProvider({ agentPath, labels: runLabel, image: noRg })
    await failsWithoutHanging(p.start({ sessionId: `norg-${suffix}`, repo }), { code: 'image_unavailable', message: expect.stringMatching(/lacks what the guest needs: rg;/) }, FAILED_START_GUARD_MS)
    expect(await provider.docker.listContainers({ all: true, filters: { label: [`${LABEL_SESSION}=norg-${suffix}`] } })).toEqual([])
  })

  it('four starts at once each start or fail on their own', async () => {
    const ac = new AbortController()
    const starts = [
      provider.start({ sessionId: `four-a-${suffix}`, repo }),
      provider.start({ sessionId: `four-b-${suffix}`, repo, sandbox: 'read-only' }),
      new DockerGuestProvider({ agentPath, labels: runLabel, image: noRg }).start({ sessionId: `four-c-${suffix}`, repo }),
      provider.start({ sessionId: `four-d-${suffix}`, repo, signal: ac.signal })
    ]
    ac.abort()
    const settled = await Promise.allSettled(starts)
    for (const s of settled) if (s.status === 'fulfilled') guests.push(s.value)
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected'])
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'image_unavailable' })
    expect((settled[3] as PromiseRejectedResult).reason).toMatchObject({ name: 'AbortError' })
    for (const s of settled.slice(0, 2)) {
      const g = (s as PromiseFulfilledResult<Guest>).value
      expect((await g.read(join(repo, 'a.txt'))).size).toBe(2)
    }
    for (const id of ['c', 'd']) {
      expect(await provider.docker.listContainers({ all: true, filters: { label: [`${LABEL_SESSION}=four-${id}-${suffix}`] } })).toEqual([])
    }
  })

  it('read-only policy: the repository is mounted read-only and writes fail with EROFS', async () => {
    const g = await provider.start({ sessionId: `ro-${suffix}`, repo, sandbox: 'read-only' })
    guests.push(g)
    const info = await provider.docker.getContainer(g.id).inspect()
    expect(info.Mounts.find((m) => m.Destination === repo)).toMatchObject({ Type: 'bind', RW: false })
    expect(info.Config.Labels[LABEL_SANDBOX]).toBe('read-only')
    expect(info.HostConfig.NetworkMode).toBe('none')
    await expect(g.write(join(repo, 'new.txt'), Buffer.from('x'))).rejects.toMatchObject({ name: 'GuestCallError', code: 'EROFS' })
    const r = await g.spawn({ argv: ['touch', join(repo, 'a.txt')], cwd: repo })
    expect(r.exitCode).not.toBe(0)
    expect(r.stderr).toMatch(/Read-only file system/)
  })

  it('network policy: attached to a network other than none (inspected only, no traffic sent)', async () => {
    const g = await provider.start({ sessionId: `net-${suffix}`, repo, sandbox: 'network' })
    guests.push(g)
    const info = await provider.docker.getContainer(g.id).inspect()
    expect(info.HostConfig.NetworkMode).not.toBe('none')
    expect(['bridge', 'cortex-guest-net']).toContain(info.HostConfig.NetworkMode)
    expect(Object.keys(info.NetworkSettings.Networks)).toEqual([info.HostConfig.NetworkMode])
    expect(info.Config.Labels[LABEL_SANDBOX]).toBe('network')
    expect(info.Mounts.find((m) => m.Destination === repo)).toMatchObject({ RW: true })
    expect(info.HostConfig.CapDrop).toEqual(['ALL'])
    await g.close()
  })

  it('the reaper never touches an unlabelled container, even when the engine ignores the label filter', async () => {
    const orphan = await provider.start({ sessionId: `orphan-${suffix}`, repo })
    guests.push(orphan)
    const plainName = `cortex-test-plain-${suffix}`
    docker('create', '--name', plainName, '--network', 'none', guestImageTag(), 'true')
    try {
      const plainId = docker('inspect', '--format', '{{.Id}}', plainName)
      // An engine that ignores filters returns every container: the reaper's own label check must hold.
      const real = provider.docker
      const lax = {
        listContainers: async () => (await real.listContainers({ all: true })).filter((c) => c.Id === plainId || c.Id === orphan.id),
        getContainer: (id: string) => real.getContainer(id)
      } as unknown as typeof real
      const removed = await reapOrphanGuests([], { docker: lax, labels: runLabel })
      expect(removed).toEqual([orphan.id])
      expect(docker('inspect', '--format', '{{.Id}}', plainName)).toBe(plainId)
      const labels = (await real.getContainer(plainId).inspect()).Config.Labels ?? {}
      expect(labels[LABEL_MANAGED]).toBeUndefined()
    } finally {
      docker('rm', '-f', plainName)
    }
  })
})
