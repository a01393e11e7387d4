// The interactive CLI folds a subagent's events into its task row (ADR 0037): its calls become the
// row's children, its text and task prompt add no transcript item, and its usage counts toward the
// session's totals without replacing the context the parent's requests fill.
import { describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../shared/events'
import { initialState, reduce, type TuiState } from './tui-state'

let seq = 0
const env = (event: SessionEvent): EventEnvelope => ({ sessionId: 's1', seq: ++seq, time: 1000, event })
const run = (events: SessionEvent[]): TuiState => events.reduce((s, e) => reduce(s, env(e)), initialState('s1'))
const usage = (inputTokens: number, parentCallId?: string): SessionEvent => ({
  type: 'usage', turnId: 't', model: 'm', inputTokens, cachedInputTokens: 0, outputTokens: 5, ...(parentCallId ? { parentCallId } : {})
})

describe('subagents in the interactive CLI', () => {
  it('nests a child\'s calls under its task row and sums its usage', () => {
    const s = run([
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      usage(1000),
      { type: 'tool_call_started', turnId: 't', callId: 'task1', name: 'task', args: { kind: 'explore', description: 'find it', prompt: 'find x' } },
      { type: 'user_message', turnId: 't', text: 'find x', parentCallId: 'task1' },
      { type: 'text_delta', turnId: 't', text: 'child thinking aloud', parentCallId: 'task1' },
      { type: 'tool_call_started', turnId: 't', callId: 'c1', name: 'grep', args: { pattern: 'x' }, parentCallId: 'task1' },
      { type: 'tool_call_finished', turnId: 't', callId: 'c1', name: 'grep', isError: false, result: 'a.ts:1:x', parentCallId: 'task1' },
      { type: 'tool_call_started', turnId: 't', callId: 'c2', name: 'write_file', args: { path: 'y' }, parentCallId: 'task1' },
      { type: 'tool_call_finished', turnId: 't', callId: 'c2', name: 'write_file', isError: true, result: 'Error: tool "write_file" is not available to this agent; it was not run.\nmore', parentCallId: 'task1' },
      usage(300, 'task1'),
      { type: 'tool_call_finished', turnId: 't', callId: 'task1', name: 'task', isError: false, result: 'x is in a.ts' }
    ])
    expect(s.items.map((i) => i.kind)).toEqual(['tool'])
    const task = s.items[0]!
    expect(task.kind === 'tool' && task.status).toBe('ok')
    expect(task.kind === 'tool' && task.children).toEqual([
      { callId: 'c1', name: 'grep', args: { pattern: 'x' }, status: 'ok' },
      { callId: 'c2', name: 'write_file', args: { path: 'y' }, status: 'error', error: 'Error: tool "write_file" is not available to this agent; it was not run.' }
    ])
    expect(s.usage.requests).toBe(2)
    expect(s.usage.inputTokens).toBe(1300)
    expect(s.contextTokens).toBe(1000)
  })
})
