// Failures at the edges of a session must not leak: a guest whose removal throws (even
// synchronously) still lets close() close the log and release the session's lock, and a turn whose
// end handler fails (the log cannot be flushed) is never an unhandled rejection nor a session stuck
// "running". Real session service, real log files and lock, real HTTP to the scripted model.
import { chownSync, rmSync } from 'node:fs'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Guest, GuestProvider } from '../../src/main/guest/guest'
import { createSessionService, type SessionService } from '../../src/main/session'
import { SessionLog } from '../../src/main/store/session-store'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup(guests: GuestProvider, script = [{ text: 'one' }, { text: 'two' }]): Promise<{ service: SessionService; server: ScriptedModelServer; dataDir: string; repo: string }> {
  const server = await startScriptedModelServer(script)
  const dataDir = tempDir('cortex-close-')
  const repo = tempDir('cortex-close-repo-')
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
  const service = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl }, guests })
  cleanups.push(() => server.close(), () => service.shutdown(), () => rmSync(dataDir, { recursive: true, force: true }), () => rmSync(repo, { recursive: true, force: true }))
  return { service, server, dataDir, repo }
}

describe('session close and turn end under failure', () => {
  it('a guest whose close throws synchronously: closeSession still closes the log and releases the lock', async () => {
    const guest = {
      id: 'guest-that-cannot-close', workspace: '/nowhere',
      close: () => {
        throw new Error('the Docker daemon went away')
      }
    } as unknown as Guest
    const { service, dataDir, repo } = await setup({ start: async () => guest })
    const ready: string[] = []
    service.onEvent((e) => e.event.type === 'guest_status' && e.event.state === 'ready' && ready.push(e.sessionId))
    const { id } = await service.openSession({ repo, mode: 'agent' })
    await vi.waitFor(() => expect(ready).toContain(id), { timeout: 10_000, interval: 10 }) // the eager attach resolved
    await service.closeSession({ sessionId: id })
    // the lock is free: another service in this process can resume the session
    const again = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: 'http://127.0.0.1:9/v1' }, guests: { start: async () => guest }, eagerGuest: false })
    cleanups.push(() => again.shutdown())
    await expect(again.resumeSession({ sessionId: id })).resolves.toMatchObject({ id })
  })

  it('a turn whose end cannot be written is no unhandled rejection, and the next turn runs', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (err: unknown): void => void unhandled.push(err)
    process.on('unhandledRejection', onUnhandled)
    cleanups.push(() => process.off('unhandledRejection', onUnhandled))
    const { service, repo } = await setup({ start: async () => Promise.reject(new Error('no guest here')) })
    const { id } = await service.openSession({ repo, mode: 'agent' })
    const flush = vi.spyOn(SessionLog.prototype, 'flush').mockImplementationOnce(() => {
      throw new Error('EIO: the disk failed')
    })
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'first' } })
    await service.idle(id)
    expect(flush).toHaveBeenCalled()
    expect((await service.listSessions({}))[0]?.running).toBe(false)
    await new Promise((r) => setTimeout(r, 50)) // a window for a rejection to surface: nothing to wait for when there is none
    expect(unhandled).toEqual([])
    // the session goes on
    const ended: string[] = []
    service.onEvent((e) => e.event.type === 'turn_ended' && ended.push(e.event.reason))
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'second' } })
    await service.idle(id)
    expect(ended).toEqual(['completed'])
  })
})
