// The summariser over the real HTTP client and the scripted model server, in all three wire
// formats: a transcript within the budget is one call with the fixed sections and the focus; a
// larger one is summarised in chunks, each call carrying the summary so far; an HTTP 500 is not
// retried (the caller's two-attempt rule counts calls).
import { afterEach, describe, expect, it } from 'vitest'
import { createLanguageModel, type ModelSettings } from '../../src/main/providers'
import { summarise, SUMMARY_SECTIONS } from '../../src/main/harness/compaction/summarise'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

const servers: ScriptedModelServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

/** Every string in a JSON body, joined. */
function allText(v: unknown): string {
  if (typeof v === 'string') return v
  if (Array.isArray(v)) return v.map(allText).join('\n')
  if (v && typeof v === 'object') return Object.values(v).map(allText).join('\n')
  return ''
}

const formats: Array<ModelSettings['provider']> = ['openai-compatible', 'openai', 'anthropic']

describe.each(formats)('summariser over %s', (provider) => {
  async function modelWith(script: Parameters<typeof startScriptedModelServer>[0]) {
    const server = await startScriptedModelServer(script)
    servers.push(server)
    return { server, model: createLanguageModel({ provider, modelId: 'claude-test', baseUrl: server.baseUrl, apiKey: 'k' }) }
  }

  it('one call for a transcript that fits, with the sections and the focus', async () => {
    const { server, model } = await modelWith([{ text: '## Intent\nsummary one' }])
    const calls: number[] = []
    const out = await summarise({ model, signal: new AbortController().signal, transcript: 'USER: fix the parser', maxTokens: 500, focus: 'the parser', inputBudget: 10_000, onCall: () => calls.push(1) })
    expect(out).toBe('## Intent\nsummary one')
    expect(calls).toHaveLength(1)
    const sent = allText(server.requests[0]!.body)
    for (const s of SUMMARY_SECTIONS) expect(sent).toContain(s)
    expect(sent).toContain('focus on: the parser')
    expect(sent).toContain('USER: fix the parser')
  })

  it('chunks a transcript over the budget, carrying the summary so far', async () => {
    const { server, model } = await modelWith([{ text: 'S1-MARK' }, { text: 'S2-MARK' }, { text: 'S3-MARK' }])
    const transcript = ['A', 'B', 'C'].map((c) => `USER: ${c.repeat(3500)}`).join('\n')
    const out = await summarise({ model, signal: new AbortController().signal, transcript, maxTokens: 500, inputBudget: 1000 })
    expect(out).toBe('S3-MARK')
    expect(server.requests).toHaveLength(3)
    expect(allText(server.requests[1]!.body)).toContain('S1-MARK')
    expect(allText(server.requests[2]!.body)).toContain('S2-MARK')
    expect(allText(server.requests[2]!.body)).toContain('CCCC')
  })

  it('an HTTP 500 fails the call without a retry', async () => {
    const { server, model } = await modelWith([{ httpError: { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'down', param: null, code: null } } } }, { text: 'never' }])
    await expect(summarise({ model, signal: new AbortController().signal, transcript: 'USER: x', maxTokens: 100, inputBudget: 1000 })).rejects.toThrow()
    expect(server.requests).toHaveLength(1)
  })
})
