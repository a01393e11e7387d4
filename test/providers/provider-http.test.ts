/**
 * End-to-end model I/O: the REAL AI SDK HTTP clients (anthropic Messages, openai Responses,
 * openai-compatible Chat Completions) against the scripted SSE server on 127.0.0.1, one
 * `streamText` call per step with tools declared without `execute`, as the harness uses them.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createServer } from 'node:net'
import { streamText, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai'
import { z } from 'zod'
import type { ProviderName } from '../../src/shared/contract'
import {
  classifyProviderError, createLanguageModel, declareTools, isAbortError, type ModelSettings
} from '../../src/main/providers'
import {
  offeredToolNames, sentToolCalls, sentToolResults, startScriptedModelServer, type ScriptStep, type ScriptedModelServer
} from '../support/scripted-model-server'

/** Errors are asserted from the stream's `error` parts; the SDK's default handler would print them. */
const quiet = (): void => undefined

const PROVIDERS: Array<{ provider: ProviderName; path: string; authHeader: string; authValue: string; keyEnv: string; unauthorized: unknown }> = [
  {
    provider: 'anthropic', path: '/v1/messages', authHeader: 'x-api-key', authValue: 'sk-test-key', keyEnv: 'ANTHROPIC_API_KEY',
    unauthorized: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }
  },
  {
    provider: 'openai', path: '/v1/responses', authHeader: 'authorization', authValue: 'Bearer sk-test-key', keyEnv: 'OPENAI_API_KEY',
    unauthorized: { error: { message: 'Incorrect API key provided: sk-test-key.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }
  },
  {
    provider: 'openai-compatible', path: '/v1/chat/completions', authHeader: 'authorization', authValue: 'Bearer sk-test-key', keyEnv: 'CORTEX_API_KEY',
    unauthorized: { error: { message: 'Invalid API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }
  }
]

const TOOLS = declareTools([
  { name: 'read_file', description: 'Read a file from the repository.', inputSchema: z.object({ path: z.string(), limit: z.number().int().optional() }) },
  { name: 'grep', description: 'Search file contents.', inputSchema: z.object({ pattern: z.string() }) }
])

type Part = TextStreamPart<ToolSet>

/** The `error.message` of an OpenAI- or Anthropic-shaped error body. */
const serverMessageOf = (body: unknown): string => (body as { error: { message: string } }).error.message

/** Run one streamText step and collect every fullStream part (and anything thrown). */
async function runStep(settings: ModelSettings, messages: ModelMessage[], signal?: AbortSignal): Promise<{ parts: Part[]; thrown?: unknown }> {
  const result = streamText({
    onError: quiet,
    model: createLanguageModel(settings),
    system: 'You are a test.',
    messages,
    tools: TOOLS,
    maxRetries: 0,
    maxOutputTokens: 1024,
    ...(signal ? { abortSignal: signal } : {})
  })
  const parts: Part[] = []
  try {
    for await (const part of result.fullStream) parts.push(part)
  } catch (err) {
    return { parts, thrown: err }
  }
  return { parts }
}

const ofType = <T extends Part['type']>(parts: Part[], type: T): Array<Extract<Part, { type: T }>> =>
  parts.filter((p): p is Extract<Part, { type: T }> => p.type === type)

/** A 127.0.0.1 port nobody listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()))
  const address = srv.address()
  const port = typeof address === 'object' && address ? address.port : 0
  await new Promise<void>((resolve) => srv.close(() => resolve()))
  return port
}

describe.each(PROVIDERS)('$provider over HTTP', ({ provider, path, authHeader, authValue, keyEnv, unauthorized }) => {
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })
  const start = async (script: ScriptStep[]): Promise<ModelSettings> => {
    server = await startScriptedModelServer(script)
    return { provider, modelId: 'test-model', baseUrl: server.baseUrl, apiKey: 'sk-test-key' }
  }

  it('streams text deltas and a parsed tool call, then sends the tool result back', async () => {
    const settings = await start([
      { text: 'Let me read that file now.', toolCalls: [{ name: 'read_file', args: { path: 'src/a.ts', limit: 20 } }] },
      { text: 'The file exports one function.' }
    ])
    const user: ModelMessage = { role: 'user', content: 'What is in src/a.ts?' }
    const step1 = await runStep(settings, [user])
    expect(step1.thrown).toBeUndefined()
    expect(ofType(step1.parts, 'error')).toEqual([])

    const deltas = ofType(step1.parts, 'text-delta').map((p) => p.text)
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('Let me read that file now.')
    const calls = ofType(step1.parts, 'tool-call')
    expect(calls).toHaveLength(1)
    const call = calls[0]!
    expect(call.toolName).toBe('read_file')
    expect(call.input).toEqual({ path: 'src/a.ts', limit: 20 })
    expect(call.toolCallId).toBeTruthy()
    expect(ofType(step1.parts, 'finish')[0]?.finishReason).toBe('tool-calls')

    const req1 = server!.requests[0]!
    expect(req1.path).toBe(path)
    expect(req1.headers[authHeader]).toBe(authValue)
    expect(offeredToolNames(req1).sort()).toEqual(['grep', 'read_file'])
    expect(sentToolResults(req1)).toEqual([])

    const history: ModelMessage[] = [
      user,
      { role: 'assistant', content: [{ type: 'text', text: deltas.join('') }, { type: 'tool-call', toolCallId: call.toolCallId, toolName: 'read_file', input: call.input }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: 'read_file', output: { type: 'text', value: 'export function a() {}' } }] }
    ]
    const step2 = await runStep(settings, history)
    expect(step2.thrown).toBeUndefined()
    expect(ofType(step2.parts, 'text-delta').map((p) => p.text).join('')).toBe('The file exports one function.')
    expect(ofType(step2.parts, 'tool-call')).toEqual([])
    expect(ofType(step2.parts, 'finish')[0]?.finishReason).toBe('stop')

    const req2 = server!.requests[1]!
    expect(sentToolCalls(req2)).toEqual([{ callId: call.toolCallId, name: 'read_file', args: { path: 'src/a.ts', limit: 20 } }])
    expect(sentToolResults(req2)).toEqual([expect.objectContaining({ callId: call.toolCallId, name: 'read_file', output: 'export function a() {}' })])
    expect(server!.remaining()).toBe(0)
  })

  it('offers exactly the declared tools (none when none are declared)', async () => {
    const settings = await start([{ text: 'a b' }, { text: 'c d' }])
    const only = declareTools([{ name: 'glob', description: 'Find files.', inputSchema: z.object({ pattern: z.string() }) }])
    for (const tools of [only, undefined]) {
      const r = streamText({ model: createLanguageModel(settings), prompt: 'hi', maxRetries: 0, maxOutputTokens: 64, onError: quiet, ...(tools ? { tools } : {}) })
      await r.consumeStream()
    }
    expect(offeredToolNames(server!.requests[0]!)).toEqual(['glob'])
    expect(offeredToolNames(server!.requests[1]!)).toEqual([])
  })

  it('ends an aborted stream promptly and closes the connection', async () => {
    const settings = await start([{ text: 'Working on it slowly', hangAfterText: true }])
    const controller = new AbortController()
    let abortedAt = 0
    const result = streamText({
      onError: quiet,
      model: createLanguageModel(settings), prompt: 'go', tools: TOOLS, maxRetries: 0, maxOutputTokens: 64, abortSignal: controller.signal
    })
    const parts: Part[] = []
    for await (const part of result.fullStream) {
      parts.push(part)
      if (part.type === 'text-delta' && abortedAt === 0) {
        abortedAt = performance.now()
        controller.abort()
      }
    }
    const elapsed = performance.now() - abortedAt
    expect(abortedAt).toBeGreaterThan(0)
    expect(elapsed).toBeLessThan(2000) // hang guard: the stream ends within a few ms of the abort; 2 s is also Stop's promise
    expect(parts.at(-1)?.type).toBe('abort')
    expect(ofType(parts, 'tool-call')).toEqual([])
    await expect.poll(() => server!.requests[0]?.closedByClient, { timeout: 2000 }).toBe(true)
  })

  it('classifies an unreachable base URL as provider_unreachable naming the setting', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`
    const settings: ModelSettings = { provider, modelId: 'test-model', baseUrl, apiKey: 'sk-test-key' }
    const { parts, thrown } = await runStep(settings, [{ role: 'user', content: 'hi' }])
    const err = thrown ?? ofType(parts, 'error')[0]?.error
    expect(err).toBeDefined()
    expect(isAbortError(err)).toBe(false)
    const classified = classifyProviderError(err, settings)
    expect(classified.code).toBe('provider_unreachable')
    expect(classified.message).toContain(baseUrl)
    expect(classified.message).toContain('--base-url')
    expect(classified.message).not.toContain('\n')
  })

  it('classifies HTTP 401 as provider_error with the server message and the key to check', async () => {
    const settings = await start([{ httpError: { status: 401, body: unauthorized } }])
    const { parts, thrown } = await runStep(settings, [{ role: 'user', content: 'hi' }])
    const err = thrown ?? ofType(parts, 'error')[0]?.error
    const classified = classifyProviderError(err, settings)
    expect(classified.code).toBe('provider_error')
    expect(classified.message).toContain('401')
    expect(classified.message).toContain(serverMessageOf(unauthorized))
    expect(classified.message).toContain(keyEnv)
    expect(classified.message).not.toContain('\n')
  })

  it('classifies an in-stream error event as provider_error after the text already streamed', async () => {
    const settings = await start([{ text: 'Starting the work', streamErrorAfterText: { message: 'Overloaded', type: 'overloaded_error' } }])
    const { parts, thrown } = await runStep(settings, [{ role: 'user', content: 'hi' }])
    expect(ofType(parts, 'text-delta').map((p) => p.text).join('')).toBe('Starting the work')
    const err = thrown ?? ofType(parts, 'error')[0]?.error
    expect(err).toBeDefined()
    const classified = classifyProviderError(err, settings)
    expect(classified.code).toBe('provider_error')
    expect(classified.message).toContain('Overloaded')
    expect(classified.message).toContain(provider)
  })

  it('classifies the RetryError left after retries by its last HTTP error', async () => {
    const body = { type: 'error', error: { type: 'overloaded_error', message: 'try later please', param: null, code: null } }
    const settings = await start([
      { httpError: { status: 503, body, headers: { 'retry-after-ms': '5' } } },
      { httpError: { status: 503, body, headers: { 'retry-after-ms': '5' } } }
    ])
    const result = streamText({ model: createLanguageModel(settings), prompt: 'hi', maxRetries: 1, maxOutputTokens: 64, onError: quiet })
    const parts: Part[] = []
    for await (const part of result.fullStream) parts.push(part)
    const err = ofType(parts, 'error')[0]?.error
    expect((err as { name?: string } | undefined)?.name).toBe('AI_RetryError')
    expect(server!.requests).toHaveLength(2)
    const classified = classifyProviderError(err, settings)
    expect(classified.code).toBe('provider_error')
    expect(classified.message).toContain('HTTP 503')
    expect(classified.message).toContain('try later please')
  })

  it('reports an exhausted script as an HTTP 500 naming the cause', async () => {
    const settings = await start([])
    const { parts, thrown } = await runStep(settings, [{ role: 'user', content: 'hi' }])
    const classified = classifyProviderError(thrown ?? ofType(parts, 'error')[0]?.error, settings)
    expect(classified.code).toBe('provider_error')
    expect(classified.message).toContain('500')
    expect(classified.message).toContain('script exhausted')
  })
})
