// The checkpoint guest (ADR 0010) with real Docker: the only container that mounts a repository's
// checkpoint store, hardened like every guest (no network, read-only root, no capabilities), labelled
// for the sweeps; shared by the sessions of one repository, removed with the last of them; removed
// when idle and replaced when it died. The session guests of the repository mount no store.
import Dockerode from 'dockerode'
import { rmSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { SessionEvent } from '../../src/shared/events'
import type { GuestProvider } from '../../src/main/guest/guest'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import { checkpointsDirOf, createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'
import { waitUntil } from '../support/wait-until'

const docker = new Dockerode()

/** Containers of `repo` with their role and mounts. */
async function containersOf(repo: string): Promise<Array<{ id: string; role?: string; info: Dockerode.ContainerInspectInfo }>> {
  const list = await docker.listContainers({ all: true, filters: { label: [`dev.cortex.repo=${repo}`] } })
  return Promise.all(list.map(async (c) => ({ id: c.Id, role: c.Labels['dev.cortex.role'], info: await docker.getContainer(c.Id).inspect() })))
}

describe.skipIf(skipWithoutDocker())('the checkpoint guest', () => {
  let server: ScriptedModelServer | undefined
  let service: SessionService | undefined
  const dirs: string[] = []
  afterEach(async () => {
    await service?.shutdown()
    await server?.close()
    service = undefined
    server = undefined
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  it('is the only container with the store, hardened and labelled, shared by the sessions of a repository and removed with the last', async () => {
    ensureAgentBundle()
    server = await startScriptedModelServer([{ text: 'one' }, { text: 'two' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const dataDir = tempDir('cortex-cp-guest-')
    dirs.push(dataDir)
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0, checkpointsDir: checkpointsDirOf(dataDir) })
    })
    const turnChanges: string[] = []
    service.onEvent((e) => {
      if (e.event.type === 'turn_changes') turnChanges.push(e.sessionId)
    })
    const a = (await service.openSession({ repo, approvalPolicy: 'never' })).id
    const b = (await service.openSession({ repo, approvalPolicy: 'never' })).id
    for (const id of [a, b]) {
      await service.submit({ sessionId: id, op: { type: 'user_message', text: 'hi' } })
      await service.idle(id)
    }
    expect(turnChanges.sort()).toEqual([a, b].sort())

    const all = await containersOf(repo)
    const cp = all.filter((c) => c.role === 'checkpoints')
    expect(cp).toHaveLength(1) // shared by both sessions
    const sessionGuests = all.filter((c) => !c.role) // a session guest's role label is set, and empty
    expect(sessionGuests.length).toBeGreaterThanOrEqual(2)
    const storeMount = (c: { info: Dockerode.ContainerInspectInfo }) => c.info.Mounts.find((m) => m.Destination === '/opt/cortex/checkpoints')
    for (const g of sessionGuests) expect(storeMount(g)).toBeUndefined()
    const info = cp[0]!.info
    expect(storeMount(cp[0]!)).toMatchObject({ RW: true })
    expect(info.Config.Labels).toMatchObject({ 'dev.cortex.managed': '1', 'dev.cortex.repo': repo })
    expect(info.Config.Labels['dev.cortex.owner']).toBeTruthy()
    expect(info.HostConfig.NetworkMode).toBe('none')
    expect(info.HostConfig.ReadonlyRootfs).toBe(true)
    expect(info.HostConfig.CapDrop).toEqual(['ALL'])

    await service.closeSession({ sessionId: a })
    expect((await containersOf(repo)).filter((c) => c.role === 'checkpoints').map((c) => c.id)).toEqual([cp[0]!.id])
    await service.closeSession({ sessionId: b })
    expect(await containersOf(repo)).toEqual([]) // the last session took the checkpoint guest with it
  })

  it('starts when a session opens, before any turn (not for a read-only session), and goes when the session closes without a turn', async () => {
    ensureAgentBundle()
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const dataDir = tempDir('cortex-cp-early-')
    dirs.push(dataDir)
    service = await createSessionService({
      dataDir,
      // no turn runs: the model is never asked
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: 'http://127.0.0.1:9/unused' },
      guests: createDefaultGuestProvider({ warmPool: 0, checkpointsDir: checkpointsDirOf(dataDir) })
    })
    const ready = new Map<string, () => void>()
    service.onEvent((e) => {
      if (e.event.type === 'guest_status' && e.event.state === 'ready') ready.get(e.sessionId)?.()
    })
    const guestReady = (id: string): Promise<void> => new Promise((r) => ready.set(id, r))
    const checkpointGuests = async (): Promise<Array<{ id: string; running: boolean }>> =>
      (await containersOf(repo)).filter((c) => c.role === 'checkpoints').map((c) => ({ id: c.id, running: c.info.State.Running }))

    // read-only: no snapshots, so no checkpoint guest, even once its own guest is up
    const ro = (await service.openSession({ repo, sandbox: 'read-only', approvalPolicy: 'never' })).id
    await guestReady(ro)
    expect(await checkpointGuests()).toEqual([])
    await service.closeSession({ sessionId: ro })

    // workspace-write: running before any turn (docker ps, by its role label)
    const id = (await service.openSession({ repo, approvalPolicy: 'never' })).id
    // hang guard: a cold start takes about a second
    await waitUntil(async () => (await checkpointGuests()).some((c) => c.running), 60_000, 'the checkpoint guest running')
    expect(await checkpointGuests()).toEqual([expect.objectContaining({ running: true })])
    await service.closeSession({ sessionId: id })
    expect(await containersOf(repo)).toEqual([]) // no turn ran: the lease went with the session, and its guest

    // closed while both guests are still starting: the checkpoint guest's start is cut short, nothing is left
    const quick = (await service.openSession({ repo, approvalPolicy: 'never' })).id
    await service.closeSession({ sessionId: quick })
    expect(await containersOf(repo)).toEqual([])
  }, 180_000)

  it('one that cannot start leaves the turn unrecorded but its tools run in the session guest', async () => {
    const agentPath = ensureAgentBundle()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo ran > ran.txt && echo RAN' } }] }, { text: 'done' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const dataDir = tempDir('cortex-cp-broken-')
    dirs.push(dataDir)
    const docker = new DockerGuestProvider({ agentPath, labels: { 'dev.cortex.test': '1' } })
    const broken: GuestProvider = {
      start: (o) => docker.start(o),
      checkpointLease: () => ({ guest: () => Promise.reject(new CortexError('guest_failed', 'no checkpoint guest in this test')), release: async () => undefined })
    }
    service = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl }, guests: broken })
    const events: SessionEvent[] = []
    service.onEvent((e) => events.push(e.event))
    const sessionId = (await service.openSession({ repo, approvalPolicy: 'never' })).id
    await service.submit({ sessionId, op: { type: 'user_message', text: 'go' } })
    await service.idle(sessionId)
    const tool = events.find((e): e is Extract<SessionEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished')
    expect(tool?.output).toContain('RAN')
    expect(events.some((e) => e.type === 'turn_changes')).toBe(false)
    expect(events.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
  })

  it('is removed when idle and started anew at the next operation; a dead one is replaced', async () => {
    const agentPath = ensureAgentBundle()
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const stores = tempDir('cortex-cp-idle-')
    dirs.push(stores)
    const provider = new DockerGuestProvider({ agentPath, checkpointsDir: stores, labels: { 'dev.cortex.test': '1' }, checkpointIdleMs: 1500 })
    const lease = provider.checkpointLease(repo)!
    try {
      const first = await lease.guest()
      expect(first.checkpointStore).toBe('/opt/cortex/checkpoints')
      await waitUntil(async () => (await containersOf(repo)).length === 0, 60_000, 'the idle checkpoint guest removed', 200)
      expect(await containersOf(repo)).toEqual([]) // idle: removed
      const second = await lease.guest()
      expect(second.id).not.toBe(first.id)
      await docker.getContainer(second.id).remove({ force: true })
      await waitUntil(async () => {
        await second.call({ op: 'ping' }).catch(() => undefined)
        return second.dead === true
      }, 60_000, 'the removed checkpoint guest seen dead')
      const third = await lease.guest()
      expect(third.id).not.toBe(second.id)
      expect(await third.call({ op: 'ping' })).toBeTruthy()
    } finally {
      await lease.release()
      await provider.close()
    }
    expect(await containersOf(repo)).toEqual([])
  }, 240_000)
})
