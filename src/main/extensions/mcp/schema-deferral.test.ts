// MCP schema deferral through the real turn loop (AI SDK in-process mock model): with 200 tools the
// first request's MCP schemas stay under the budget, the model searches, loads and calls a tool, and
// tool_search never reveals a tool the mode withholds.
import type { LanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generatedTools } from '../../../../test/support/mcp-many-tools-server'
import { CortexError } from '../../../shared/errors'
import type { SessionEvent } from '../../../shared/events'
import type { Mode } from '../../../shared/modes'
import { runTurn, type TurnDeps } from '../../harness/turn-loop'
import type { ToolDefinition } from '../../tools/tool'
import { withSchemaDeferral } from './schema-deferral'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const end = (u: 'stop' | 'tool-calls'): LanguageModelV4StreamPart => ({ type: 'finish', usage, finishReason: { unified: u, raw: u } })
type Step = { call: [string, unknown] } | { text: string }

/** A model playing `steps` in order; records each request. */
function scripted(steps: Step[]): { model: LanguageModel; requests: LanguageModelV4CallOptions[] } {
  const requests: LanguageModelV4CallOptions[] = []
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      requests.push(options)
      const s = steps[requests.length - 1] ?? { text: 'done' }
      const parts: LanguageModelV4StreamPart[] = 'call' in s
        ? [{ type: 'tool-call', toolCallId: `c${requests.length}`, toolName: s.call[0], input: JSON.stringify(s.call[1]) }, end('tool-calls')]
        : [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: s.text }, { type: 'text-end', id: 't' }, end('stop')]
      return { stream: new ReadableStream<LanguageModelV4StreamPart>({ start: (c) => { c.enqueue({ type: 'stream-start', warnings: [] }); for (const p of parts) c.enqueue(p); c.close() } }) }
    }
  })
  return { model, requests }
}

/** 200 MCP tools as the tool adapter makes them; `readOnly(name)` marks some read-only; each records its calls. */
function mcpTools(readOnly: (name: string) => boolean = () => false): { tools: ToolDefinition[]; calls: string[] } {
  const calls: string[] = []
  const tools = generatedTools(200).map((g): ToolDefinition => ({
    name: `mcp__many__${g.name}`,
    description: g.description,
    inputSchema: z.object({}).passthrough(),
    jsonSchema: g.inputSchema,
    readOnly: readOnly(g.name),
    needsGuest: false,
    execute: async (input) => {
      calls.push(`${g.name} ${JSON.stringify(input)}`)
      return { output: `called ${g.name}` }
    }
  }))
  return { tools, calls }
}

function turn(model: LanguageModel, mode: Mode, tools: ToolDefinition[], window = 128_000): TurnDeps & { log: SessionEvent[] } {
  const log: SessionEvent[] = [{ type: 'user_message', turnId: 't1', text: 'approve the payroll P-1' }]
  const emit = (e: SessionEvent): void => void log.push(e)
  const provider = withSchemaDeferral({ name: 'mcp', tools: () => tools }, { budget: { share: 0.1 }, window, modeNow: () => ({ mode, lock: null }), emit })
  return {
    log, turnId: 't1', model, signal: new AbortController().signal, catalog: {}, extraTools: () => provider.tools!(),
    getMode: () => mode, events: () => log, emit, getGuest: () => Promise.reject(new Error('no guest')),
    session: { getTodos: () => [], setTodos: () => undefined, setPlan: () => undefined },
    classifyError: (err) => (err instanceof CortexError ? err : new CortexError('provider_error', String(err))), systemPrompt: () => 'sys', maxRetries: 0
  }
}

const sent = (r: LanguageModelV4CallOptions): Array<{ name: string; description?: string; inputSchema?: unknown }> =>
  (r.tools ?? [])
const mcpTokens = (r: LanguageModelV4CallOptions): number =>
  sent(r).filter((t) => t.name.startsWith('mcp__')).reduce((n, t) => n + Math.ceil((t.name.length + (t.description ?? '').length + JSON.stringify(t.inputSchema).length) / 4), 0)
const results = (log: SessionEvent[]) => log.filter((e): e is Extract<SessionEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished')
const figures = (log: SessionEvent[]) => log.filter((e): e is Extract<SessionEvent, { type: 'mcp_schemas' }> => e.type === 'mcp_schemas')

describe('MCP schema deferral in the turn loop', () => {
  it('sends no MCP schema past the budget, then the model searches, loads and calls a tool', async () => {
    const { tools, calls } = mcpTools()
    const { model, requests } = scripted([
      { call: ['tool_search', { query: 'approve payroll', limit: 3 }] },
      { call: ['mcp__many__payroll_approve', { id: 'P-1' }] },
      { text: 'approved' }
    ])
    const d = turn(model, 'agent', tools)
    await expect(runTurn(d)).resolves.toBe('completed')

    // first request: tool_search instead of 200 schemas, and its MCP schemas within 10% of 128k
    expect(sent(requests[0]!).map((t) => t.name)).toEqual(['tool_search'])
    expect(mcpTokens(requests[0]!)).toBeLessThanOrEqual(12_800)
    expect(sent(requests[0]!)[0]!.description).toContain('200 tools')
    const [search, call] = results(d.log)
    expect(search!.result).toContain('- mcp__many__payroll_approve (many · payroll_approve)')
    expect(search!.result).toContain('id: string (required)')
    // loaded: sent with its schema from the next request on, still far under the budget
    const second = sent(requests[1]!)
    expect(second.map((t) => t.name)).toContain('mcp__many__payroll_approve')
    expect(second.find((t) => t.name === 'mcp__many__payroll_approve')!.inputSchema).toMatchObject({ required: ['id'] })
    expect(second.length).toBe(4) // three loaded and tool_search
    expect(call).toMatchObject({ name: 'mcp__many__payroll_approve', isError: false, result: 'called payroll_approve' })
    expect(calls).toEqual(['payroll_approve {"id":"P-1"}'])
    // what the schemas cost and what was saved, before each request it describes
    const [f1, f2] = figures(d.log)
    expect(f1).toMatchObject({ tools: 200, deferred: 200, sentTokens: 0, budget: 12_800 })
    expect(f1!.tokens).toBeGreaterThan(30_000)
    expect(f2).toMatchObject({ tools: 200, deferred: 197 })
    expect(d.log.indexOf(f1!)).toBeLessThan(d.log.findIndex((e) => e.type === 'assistant_message'))
  })

  it('sends every schema and no tool_search when the tools fit the budget', async () => {
    const { tools } = mcpTools()
    const { model, requests } = scripted([{ text: 'hi' }])
    const d = turn(model, 'agent', tools.slice(0, 10))
    await runTurn(d)
    expect(sent(requests[0]!).map((t) => t.name)).toHaveLength(10)
    expect(sent(requests[0]!).map((t) => t.name)).not.toContain('tool_search')
    expect(figures(d.log)).toEqual([expect.objectContaining({ tools: 10, deferred: 0 })])
  })

  it('in Ask mode searches only the read-only tools: a withheld one is neither found nor run', async () => {
    const { tools, calls } = mcpTools((n) => n.endsWith('_get') || n.endsWith('_list'))
    const { model } = scripted([
      { call: ['tool_search', { query: 'delete invoice', limit: 10 }] },
      { call: ['tool_search', { query: 'get weather' }] },
      { call: ['mcp__many__invoice_delete', { id: 'I-1' }] },
      { text: 'cannot delete' }
    ])
    const d = turn(model, 'ask', tools, 20_000) // 40 read-only tools cost more than 2,000 tokens
    await runTurn(d)
    const [first, second, refused] = results(d.log)
    expect(first!.result).toContain('mcp__many__invoice_get')
    expect(first!.result).not.toContain('invoice_delete')
    expect(second!.result).toContain('mcp__many__weather_get')
    expect(refused).toMatchObject({ isError: true })
    expect(refused!.result).toContain('not available in ask mode')
    expect(calls).toEqual([])
    expect(figures(d.log)[0]).toMatchObject({ tools: 40, deferred: 40 })
  })
})
