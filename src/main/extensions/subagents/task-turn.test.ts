// A subagent's child turn through the real turn loop with the AI SDK's in-process mock model (ADR
// 0037): the loop guard covers the child (a child repeating the same failing call ends the whole
// turn with loop_detected, its task call answered), and the SubagentStop hook point is told how
// it ended.
import type { LanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CortexError } from '../../../shared/errors'
import type { SessionEvent } from '../../../shared/events'
import { createTaskTool } from './task-tool'
import type { ToolDefinition } from '../../tools/tool'
import type { SubagentEnd } from '../../harness/turn-deps'
import { runTurn, type TurnDeps } from '../../harness/turn-loop'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const end = (u: 'stop' | 'tool-calls'): LanguageModelV4StreamPart => ({ type: 'finish', usage, finishReason: { unified: u, raw: u } })
const call = (id: string, name: string, input: unknown): LanguageModelV4StreamPart => ({ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) })
const firstUser = (o: LanguageModelV4CallOptions): string => {
  const m = o.prompt.find((p) => p.role === 'user')
  return m && Array.isArray(m.content) && m.content[0]?.type === 'text' ? m.content[0].text : ''
}

/** The parent starts one `general` child; the child calls the failing tool forever. */
function model(): LanguageModel {
  let n = 0
  return new MockLanguageModelV4({
    doStream: async (options) => {
      n++
      const parts = firstUser(options) === 'CHILD' ? [call(`k${n}`, 'fails', {}), end('tool-calls')] : [call('task1', 'task', { kind: 'general', description: 'loop', prompt: 'CHILD' }), end('tool-calls')]
      return { stream: new ReadableStream<LanguageModelV4StreamPart>({ start: (c) => { c.enqueue({ type: 'stream-start', warnings: [] }); for (const p of parts) c.enqueue(p); c.close() } }) }
    }
  })
}

describe('child turns', () => {
  it('a looping child ends the turn with loop_detected, its task call answered and its end told', async () => {
    const log: SessionEvent[] = [{ type: 'user_message', turnId: 't1', text: 'go' }]
    const ends: SubagentEnd[] = []
    const fails: ToolDefinition = { name: 'fails', description: 'fails', inputSchema: z.object({}), needsGuest: false, execute: async () => ({ output: 'Error: no', isError: true }) }
    const task = createTaskTool([{ name: 'general', description: 'everything', tools: 'inherit' }], 4)
    const deps: TurnDeps = {
      turnId: 't1', model: model(), signal: new AbortController().signal, catalog: { fails }, extraTools: () => [task],
      getMode: () => 'agent', events: () => log.filter((e) => !('parentCallId' in e && e.parentCallId)), emit: (e) => void log.push(e),
      getGuest: () => Promise.reject(new Error('no guest')), session: { getTodos: () => [], setTodos: () => undefined, setPlan: () => undefined },
      classifyError: (err) => (err instanceof CortexError ? err : new CortexError('provider_error', String(err))), systemPrompt: () => 'sys', maxRetries: 0,
      subagentEnded: (e) => void ends.push(e)
    }
    await expect(runTurn(deps)).rejects.toMatchObject({ code: 'loop_detected' })
    const childCalls = log.filter((e) => e.type === 'tool_call_finished' && e.parentCallId === 'task1')
    expect(childCalls).toHaveLength(5)
    const taskResult = log.filter((e) => e.type === 'tool_call_finished' && e.callId === 'task1')
    expect(taskResult).toHaveLength(1)
    expect(taskResult[0]).toMatchObject({ isError: true, result: expect.stringMatching(/^Error: stopped a loop: the model called fails \{\} 5 times in a row/) })
    expect(ends).toEqual([{ parentCallId: 'task1', kind: 'general', outcome: 'error', report: '', depth: 1 }])
  })
})
