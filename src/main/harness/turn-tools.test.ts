// Tools beyond the catalog (extensions: MCP tools, task, skill, tool_search) through the real turn
// loop with the AI SDK's in-process mock model: modes decide them like built-ins, a deferred tool
// runs but is not sent, and no extension can replace a built-in.
import type { LanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CortexError } from '../../shared/errors'
import type { SessionEvent } from '../../shared/events'
import { offeredTools, type Mode } from '../../shared/modes'
import type { ToolDefinition } from '../tools/tool'
import { runTurn, type TurnDeps } from './turn-loop'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const end = (u: 'stop' | 'tool-calls'): LanguageModelV4StreamPart => ({ type: 'finish', usage, finishReason: { unified: u, raw: u } })
const call = (id: string, name: string, input: unknown): LanguageModelV4StreamPart => ({ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) })

/** A model that calls `name` once, then answers; records each request's offered tool names and schemas. */
function model(name: string, input: unknown = { q: 'x' }): { model: LanguageModel; requests: LanguageModelV4CallOptions[] } {
  const requests: LanguageModelV4CallOptions[] = []
  const m = new MockLanguageModelV4({
    doStream: async (options) => {
      requests.push(options)
      const parts = requests.length === 1 ? [call('c1', name, input), end('tool-calls')] : [{ type: 'text-start', id: 't' } as const, { type: 'text-delta', id: 't', delta: 'ok' } as const, { type: 'text-end', id: 't' } as const, end('stop')]
      return { stream: new ReadableStream<LanguageModelV4StreamPart>({ start: (c) => { c.enqueue({ type: 'stream-start', warnings: [] }); for (const p of parts) c.enqueue(p); c.close() } }) }
    }
  })
  return { model: m, requests }
}

/** An extension tool that records its runs. */
function extra(name: string, over: Partial<ToolDefinition> = {}): ToolDefinition & { runs: number } {
  const t = {
    runs: 0,
    name,
    description: `the ${name} tool`,
    inputSchema: z.object({}).passthrough(),
    jsonSchema: { type: 'object', properties: { q: { type: 'string', description: 'what to look for' } } },
    needsGuest: false,
    execute: async () => {
      t.runs++
      return { output: `${name} ran` }
    },
    ...over
  }
  return t
}

function deps(m: LanguageModel, mode: Mode, extras: ToolDefinition[]): TurnDeps & { log: SessionEvent[] } {
  const log: SessionEvent[] = [{ type: 'user_message', turnId: 't1', text: 'go' }]
  const bash: ToolDefinition = { name: 'bash', description: 'run', inputSchema: z.object({ command: z.string() }), needsGuest: false, execute: async () => ({ output: 'real bash' }) }
  return {
    log, turnId: 't1', model: m, signal: new AbortController().signal, catalog: { bash }, extraTools: () => extras,
    getMode: () => mode, events: () => log, emit: (e) => void log.push(e), getGuest: () => Promise.reject(new Error('no guest')),
    session: { getTodos: () => [], setTodos: () => undefined, setPlan: () => undefined },
    classifyError: (err) => (err instanceof CortexError ? err : new CortexError('provider_error', String(err))), systemPrompt: () => 'sys', maxRetries: 0
  }
}

const toolNames = (r: LanguageModelV4CallOptions): string[] => (r.tools ?? []).map((t) => t.name)
const result = (log: SessionEvent[]): Extract<SessionEvent, { type: 'tool_call_finished' }> | undefined =>
  log.find((e): e is Extract<SessionEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished')

describe('extension tools in the turn loop', () => {
  it('offers a writing extension tool in Agent mode with its own JSON schema, and runs it', async () => {
    const { model: m, requests } = model('mcp__srv__look')
    const t = extra('mcp__srv__look')
    const d = deps(m, 'agent', [t])
    await expect(runTurn(d)).resolves.toBe('completed')
    expect(toolNames(requests[0]!)).toContain('mcp__srv__look')
    const sent = requests[0]!.tools!.find((x) => x.name === 'mcp__srv__look') as { inputSchema: { properties: Record<string, unknown> } }
    expect(sent.inputSchema.properties).toHaveProperty('q')
    expect(t.runs).toBe(1)
    expect(result(d.log)).toMatchObject({ isError: false, result: 'mcp__srv__look ran' })
  })

  it('in Ask mode neither offers nor runs a writing extension tool (a replayed call is refused)', async () => {
    const { model: m, requests } = model('mcp__srv__write')
    const t = extra('mcp__srv__write')
    const d = deps(m, 'ask', [t])
    await runTurn(d)
    expect(toolNames(requests[0]!)).not.toContain('mcp__srv__write')
    expect(t.runs).toBe(0)
    expect(result(d.log)?.isError).toBe(true)
    expect(result(d.log)?.result).toContain('not available in ask mode')
  })

  it('offers a read-only extension tool in Ask mode and under a plan lock', async () => {
    const { model: m, requests } = model('skill')
    const t = extra('skill', { readOnly: true })
    await runTurn(deps(m, 'ask', [t]))
    expect(toolNames(requests[0]!)).toContain('skill')
    expect(t.runs).toBe(1)
    expect(offeredTools('plan', { kind: 'plan' }, false, [{ name: 'skill', readOnly: true }, { name: 'w', readOnly: false }])).toEqual(['read_file', 'glob', 'grep', 'plan', 'skill'])
  })

  it('does not send a deferred tool, yet runs it when called', async () => {
    const { model: m, requests } = model('mcp__srv__deferred')
    const t = extra('mcp__srv__deferred', { deferred: true })
    await runTurn(deps(m, 'agent', [t]))
    expect(toolNames(requests[0]!)).not.toContain('mcp__srv__deferred')
    expect(t.runs).toBe(1)
  })

  it('never lets an extension replace a built-in', async () => {
    const { model: m } = model('bash', { command: 'ls' })
    const fake = extra('bash')
    const d = deps(m, 'agent', [fake])
    await runTurn(d)
    expect(fake.runs).toBe(0)
    expect(result(d.log)?.result).toBe('real bash')
  })
})
