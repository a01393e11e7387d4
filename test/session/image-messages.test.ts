// Images through the session API (ADR 0025), without a guest: a 50 MB image part is refused with
// a clear error and nothing recorded; a message with an image sent during a turn is queued with
// its reference and delivered with it at the next step (the request carries the image); a later
// message can refer to a stored image by hash; an unknown hash is refused.
import { chownSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { createSessionService, type SessionService } from '../../src/main/session'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { makePng } from '../support/png'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

let service: SessionService | undefined
let server: ScriptedModelServer | undefined
afterEach(async () => {
  await service?.shutdown()
  await server?.close()
})

/** An Anthropic session (every Claude-family id takes images) with no guest, and its events. */
async function open(script: ScriptStep[]): Promise<{ id: string; events: EventEnvelope[] }> {
  server = await startScriptedModelServer(script)
  service = await createSessionService({
    dataDir: tempDir('cortex-img-'),
    modelSettings: { provider: 'anthropic', modelId: 'claude-sonnet-4-5', baseUrl: server.baseUrl, apiKey: 'test-key' },
    guests: { start: async () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
    eagerGuest: false
  })
  const events: EventEnvelope[] = []
  service.onEvent((e) => events.push(e))
  const repo = tempDir('cortex-img-repo-')
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
  return { id: (await service.openSession({ repo, mode: 'agent' })).id, events }
}

/** Base64 data of the Anthropic image blocks of a request's user messages, in order. */
const userImages = (body: unknown): string[] =>
  (body as { messages: Array<{ role: string; content: unknown }> }).messages
    .filter((m) => m.role === 'user' && Array.isArray(m.content))
    .flatMap((m) => (m.content as Array<{ type: string; source?: { data: string } }>).filter((p) => p.type === 'image').map((p) => p.source!.data))

const png = makePng(3, 2)
const b64 = png.toString('base64')

describe('images through the session API', () => {
  it('refuses a 50 MB image part with the limit stated, recording nothing', async () => {
    const { id, events } = await open([{ text: 'never' }])
    const before = events.length
    const huge = Buffer.alloc(50 * 1024 * 1024).toString('base64')
    const err = await service!.submit({ sessionId: id, op: { type: 'user_message', text: 'look', images: [{ data: huge }] } }).then(() => null, (e: unknown) => e)
    expect(err).toBeInstanceOf(CortexError)
    expect((err as CortexError).code).toBe('invalid_input')
    expect((err as Error).message).toMatch(/images\.0\.data: an image may have at most 5\.0 MB/)
    expect(events.length).toBe(before)
    expect(server!.requests).toHaveLength(0)
  })

  it('queues a message with an image during a turn and delivers it with the image; a later message refers to it by hash', async () => {
    const { id, events } = await open([
      { text: 'Working.', toolCalls: [{ name: 'todo_write', args: { todos: [{ content: 'look', status: 'in_progress' }] } }], chunkDelayMs: 20 },
      { text: 'I see the image you queued.' },
      { text: 'The same image again.' }
    ])
    const started = new Promise<void>((resolve) => service!.onEvent((e) => e.event.type === 'turn_started' && resolve()))
    await service!.submit({ sessionId: id, op: { type: 'user_message', text: 'start' } })
    await started
    await service!.submit({ sessionId: id, op: { type: 'user_message', text: 'and this', images: [{ data: b64, name: 'q.png' }] } })
    await service!.idle(id)
    const all = events.map((e) => e.event)
    const queued = all.find((e): e is Extract<SessionEvent, { type: 'message_queued' }> => e.type === 'message_queued')!
    expect(queued.images).toEqual([expect.objectContaining({ name: 'q.png', width: 3, height: 2 })])
    expect(all.find((e) => e.type === 'user_message' && e.queueId === queued.queueId)).toMatchObject({ images: queued.images })
    expect(userImages(server!.requests[1]!.body)).toEqual([b64])

    const sha = queued.images![0]!.sha256
    await service!.submit({ sessionId: id, op: { type: 'user_message', text: 'again', images: [{ ref: sha, name: 'again.png' }] } })
    await service!.idle(id)
    expect(userImages(server!.requests[2]!.body)).toEqual([b64, b64])
    const unknown = await service!.submit({ sessionId: id, op: { type: 'user_message', text: 'x', images: [{ ref: 'e'.repeat(64) }] } }).then(() => null, (e: unknown) => e)
    expect((unknown as Error).message).toBe(`no image ${'e'.repeat(64)} is stored in this session; send its bytes (data) instead`)
  })
})
