// Usage and prompt caching through the session service, the real AI SDK HTTP clients and the
// scripted model server: a `usage` event per model request (tokens from the wire, cost from the
// price table for a known model, none for an unknown one), the turn's totals on `turn_ended`, and
// Anthropic requests carrying cache_control on the system prompt, the last tool and the history.
import { chownSync, rmSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { ModelSettings } from '../../src/main/providers'
import { createSessionService, type SessionService } from '../../src/main/session'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

type Usage = Extract<SessionEvent, { type: 'usage' }>

/** One turn of two model requests (todo_write needs no guest) over `provider` with model id `modelId`. */
async function twoRequestTurn(provider: ModelSettings['provider'], modelId: string): Promise<{ events: SessionEvent[]; server: ScriptedModelServer }> {
  const server = await startScriptedModelServer([
    { text: 'Noting it.', toolCalls: [{ name: 'todo_write', args: { todos: [{ content: 'x', status: 'pending' }] } }] },
    { text: 'Done.' }
  ])
  const dataDir = tempDir('cortex-usage-')
  const repo = tempDir('cortex-usage-repo-')
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
  const service: SessionService = await createSessionService({
    dataDir,
    modelSettings: { provider, modelId, baseUrl: server.baseUrl, apiKey: 'test-key' },
    guests: { start: async () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
    eagerGuest: false
  })
  cleanups.push(() => server.close(), () => service.shutdown(), () => rmSync(dataDir, { recursive: true, force: true }), () => rmSync(repo, { recursive: true, force: true }))
  const events: EventEnvelope[] = []
  service.onEvent((e) => events.push(e))
  const { id } = await service.openSession({ repo, mode: 'agent' })
  await service.submit({ sessionId: id, op: { type: 'user_message', text: 'note x' } })
  await service.idle(id)
  return { events: events.map((e) => e.event), server }
}

/** Every cache_control marker in a JSON body, with the path it sits at. */
function cacheMarks(body: unknown, path = ''): string[] {
  if (Array.isArray(body)) return body.flatMap((v, i) => cacheMarks(v, `${path}[${i}]`))
  if (body && typeof body === 'object') {
    return Object.entries(body).flatMap(([k, v]) => (k === 'cache_control' ? [path] : cacheMarks(v, `${path}.${k}`)))
  }
  return []
}

describe('usage and prompt caching', () => {
  it('anthropic: usage per request priced from the table, totals on turn_ended, cache_control on system, last tool and history', async () => {
    const { events, server } = await twoRequestTurn('anthropic', 'claude-sonnet-4-5')
    const usage = events.filter((e): e is Usage => e.type === 'usage')
    // the scripted Anthropic stream reports 10 input and 5 output tokens; sonnet 4.5 is $3 / $15 per million
    expect(usage).toEqual([
      expect.objectContaining({ model: 'claude-sonnet-4-5', inputTokens: 10, cachedInputTokens: 0, outputTokens: 5, costUsd: expect.closeTo(0.000105, 10) }),
      expect.objectContaining({ model: 'claude-sonnet-4-5', inputTokens: 10, outputTokens: 5 })
    ])
    const ended = events.at(-1)
    expect(ended).toMatchObject({ type: 'turn_ended', reason: 'completed', usage: { requests: 2, inputTokens: 20, outputTokens: 10 } })
    expect(ended?.type === 'turn_ended' && ended.usage?.costUsd).toBeCloseTo(0.00021, 10)

    // first request: system, last tool, the one user message; second: also the newest (tool) message
    const first = server.requests[0]!.body as { system: unknown[]; tools: Array<{ name: string }>; messages: unknown[] }
    expect(cacheMarks(first.system)).toEqual(['[0]'])
    const toolMarks = cacheMarks(first.tools)
    expect(toolMarks).toEqual([`[${first.tools.length - 1}]`])
    expect(cacheMarks(first.messages)).toEqual(['[0].content[0]'])
    const second = server.requests[1]!.body as { messages: Array<{ role: string }> }
    const marks = cacheMarks(second.messages)
    expect(marks).toHaveLength(2)
    expect(marks[0]).toMatch(/^\[0\]\.content/) // the user message
    expect(marks[1]).toMatch(new RegExp(`^\\[${second.messages.length - 1}\\]\\.content`)) // the tool result: the newest message
    expect(cacheMarks(server.requests[1]!.body).length).toBeLessThanOrEqual(4) // Anthropic's limit
  })

  it('an unknown model (openai-compatible) has tokens but no cost, and no cache_control is sent', async () => {
    const { events, server } = await twoRequestTurn('openai-compatible', 'qwen-local')
    const usage = events.filter((e): e is Usage => e.type === 'usage')
    expect(usage).toHaveLength(2)
    for (const u of usage) expect(u.costUsd).toBeUndefined()
    const ended = events.at(-1)
    expect(ended).toMatchObject({ type: 'turn_ended', usage: { requests: 2 } })
    expect(ended?.type === 'turn_ended' && ended.usage?.costUsd).toBeUndefined()
    for (const r of server.requests) expect(cacheMarks(r.body)).toEqual([])
  })
})
