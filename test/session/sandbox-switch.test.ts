// Switching the sandbox policy restarts the session's guest with the new policy: the old guest is
// closed before the new one starts, and a switch during a turn is refused. The guest provider here
// records what the session asks of it; the Docker side of each policy is tested in src/main/guest.
import { chownSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { Guest, GuestProvider } from '../../src/main/guest/guest'
import { createSessionService, type SessionService } from '../../src/main/session'
import type { SandboxPolicy } from '../../src/shared/sandbox'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

let cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanup) await c()
  cleanup = []
})

function recordingProvider(log: string[]): GuestProvider {
  let n = 0
  return {
    async start({ sandbox }: { sandbox?: SandboxPolicy }) {
      const id = `g${++n}`
      log.push(`start ${id} ${sandbox}`)
      return { id, workspace: '/', close: async () => void log.push(`close ${id}`) } as unknown as Guest
    }
  }
}

async function setup(script = [{ text: 'hi', hangAfterText: true }]): Promise<{ service: SessionService; id: string; log: string[]; server: ScriptedModelServer }> {
  const log: string[] = []
  const server = await startScriptedModelServer(script)
  const dataDir = tempDir('cortex-sbx-')
  const service = await createSessionService({
    dataDir,
    modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
    guests: recordingProvider(log)
  })
  cleanup.push(async () => {
    await service.shutdown()
    await server.close()
  })
  // a repository apart from the data folder, not root-owned (both are refused as repositories)
  const repo = tempDir('cortex-sbx-repo-')
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
  const { id, sandbox } = await service.openSession({ repo, sandbox: 'read-only' })
  expect(sandbox).toBe('read-only')
  return { service, id, log, server }
}

const until = async (f: () => boolean) => {
  for (let i = 0; i < 500 && !f(); i++) await new Promise((r) => setTimeout(r, 10))
}

describe('sandbox policy switch', () => {
  it('closes the old guest, then starts one with the new policy', async () => {
    const { service, id, log } = await setup()
    await until(() => log.length === 1)
    await service.submit({ sessionId: id, op: { type: 'set_sandbox', policy: 'network' } })
    await until(() => log.length === 3)
    expect(log).toEqual(['start g1 read-only', 'close g1', 'start g2 network'])
    expect((await service.listSessions({}))[0]?.sandbox).toBe('network')
  })

  it('is refused while a turn runs', async () => {
    const { service, id } = await setup()
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'go' } })
    await expect(service.submit({ sessionId: id, op: { type: 'set_sandbox', policy: 'network' } })).rejects.toMatchObject({ code: 'busy' })
    await service.submit({ sessionId: id, op: { type: 'stop' } })
  })
})
