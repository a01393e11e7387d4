/**
 * `set_model` in the real session service (no guest needed; ADR 0028): refused with `busy` while a
 * turn runs and taken after Stop; a model the server does not list is refused while one it lists
 * (or a well-formed id, when the server has no list) is taken; `listModels` offers the server's ids
 * then the per-model table's.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createSessionService } from '../src/main/session'
import type { GuestProvider } from '../src/main/guest/guest'
import { CortexError } from '../src/shared/errors'
import { makeTestRepo } from './support/guest'
import { startScriptedModelServer } from './support/scripted-model-server'

const noGuests: GuestProvider = { start: () => Promise.reject(new CortexError('guest_failed', 'no guests in this test')) }
const cleanup: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

describe('set_model', () => {
  it('is refused during a turn, taken after Stop, and checked against the server list', async () => {
    const model = await startScriptedModelServer([{ text: 'thinking', hangAfterText: true }, { text: 'from the large one' }], { models: ['small', 'large'] })
    const dataDir = mkdtempSync(join(tmpdir(), 'cortex-model-choice-'))
    const service = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'small', baseUrl: model.baseUrl }, guests: noGuests, eagerGuest: false })
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }), () => model.close(), () => service.shutdown())
    const repo = await makeTestRepo({}, { git: false })
    const s = await service.openSession({ repo })
    expect(await service.listModels({ sessionId: s.id })).toEqual({ current: { provider: 'openai-compatible', model: 'small' }, models: [{ id: 'small', source: 'server' }, { id: 'large', source: 'server' }] })

    await service.submit({ sessionId: s.id, op: { type: 'user_message', text: 'go' } })
    await expect.poll(() => model.requests.some((r) => r.hanging)).toBe(true)
    await expect(service.submit({ sessionId: s.id, op: { type: 'set_model', model: 'large' } })).rejects.toMatchObject({ code: 'busy' })
    await service.submit({ sessionId: s.id, op: { type: 'stop' } })
    await service.idle(s.id)
    await expect(service.submit({ sessionId: s.id, op: { type: 'set_model', model: 'huge' } })).rejects.toMatchObject({ code: 'invalid_input' })
    await service.submit({ sessionId: s.id, op: { type: 'set_model', model: 'large' } })
    await service.submit({ sessionId: s.id, op: { type: 'user_message', text: 'again' } })
    await service.idle(s.id)
    const posts = model.requests.filter((r) => r.method === 'POST')
    expect(posts.map((r) => (r.body as { model?: string }).model)).toEqual(['small', 'large'])
    const events = (await service.sessionEvents({ sessionId: s.id })).map((e) => e.event)
    expect(events.filter((e) => e.type === 'model_changed')).toEqual([{ type: 'model_changed', provider: 'openai-compatible', model: 'large', baseUrl: model.baseUrl }])
  })

  it('takes any well-formed id when the server lists none, and offers the table for known providers', async () => {
    const model = await startScriptedModelServer([])
    const dataDir = mkdtempSync(join(tmpdir(), 'cortex-model-choice-'))
    const service = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: model.baseUrl }, guests: noGuests, eagerGuest: false })
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }), () => model.close(), () => service.shutdown())
    const s = await service.openSession({ repo: await makeTestRepo({}, { git: false }) })
    const listed = await service.listModels({ sessionId: s.id })
    expect(listed.models).toEqual([])
    expect(listed.detail).toMatch(/\/models answered HTTP 404/)
    await service.submit({ sessionId: s.id, op: { type: 'set_model', model: 'qwen2.5-coder:7b' } })
    expect((await service.listModels({ sessionId: s.id })).current.model).toBe('qwen2.5-coder:7b')

    const { listProviderModels } = await import('../src/main/providers/model-list')
    const anthropic = await listProviderModels({ provider: 'anthropic', modelId: 'x', baseUrl: model.baseUrl })
    expect(anthropic.models.length).toBeGreaterThan(0)
    expect(anthropic.models.every((m) => m.source === 'table' && m.id.startsWith('claude-'))).toBe(true)
  })
})
