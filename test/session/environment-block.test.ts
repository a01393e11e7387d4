// The environment block when the guest cannot give the git facts, through the session service, the
// real openai-compatible HTTP client and the scripted model server: a guest that fails to start
// leaves "Git repository: unknown (…)" in the request and the turn goes on to the model's answer.
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { GuestProvider } from '../../src/main/guest/guest'
import { createSessionService } from '../../src/main/session'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { startScriptedModelServer } from '../support/scripted-model-server'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A session service over `guests` and a scripted server answering `ok`; the events seen so far. */
async function open(guests: GuestProvider) {
  const server = await startScriptedModelServer([{ text: 'ok' }])
  const dataDir = mkdtempSync(join(tmpdir(), 'cortex-env-'))
  const repo = mkdtempSync(join(tmpdir(), 'cortex-env-repo-'))
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
  const service = await createSessionService({
    dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'scripted', baseUrl: server.baseUrl, apiKey: 'test-key' }, guests
  })
  cleanups.push(() => server.close(), () => service.shutdown(), () => rmSync(dataDir, { recursive: true, force: true }), () => rmSync(repo, { recursive: true, force: true }))
  const events: SessionEvent[] = []
  service.onEvent((e: EventEnvelope) => events.push(e.event))
  const { id } = await service.openSession({ repo, mode: 'agent' })
  return { server, service, id, events }
}

describe('environment block without git facts', () => {
  it('a guest that fails to start: the block says git is unknown and the turn goes on', async () => {
    const { server, service, id, events } = await open({ start: async () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) })
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'hi' } })
    await service.idle(id)
    const body = server.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> }
    const env = body.messages.filter((m) => m.role === 'system').map((m) => String(m.content))[1]
    expect(env).toMatch(/^<environment>/)
    expect(env).toMatch(/Git repository: unknown \(.+\)/)
    expect(events.find((e) => e.type === 'turn_ended')).toMatchObject({ reason: 'completed' })
    expect(events.find((e) => e.type === 'assistant_message')).toMatchObject({ text: 'ok' })
  }, 60_000)
})
