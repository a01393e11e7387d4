// The history validator against hostile histories: every repaired request pairs each tool call with
// exactly one result right after it; what cannot be repaired is refused with a typed error.
import type { ModelMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../shared/events'
import { buildModelMessages } from './history'
import { HistoryInvalidError, INTERRUPTED_RESULT, validateHistory } from './history-validator'

const user = (text: string): ModelMessage => ({ role: 'user', content: text })
const call = (id: string, name = 'bash'): { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown } => ({
  type: 'tool-call', toolCallId: id, toolName: name, input: {}
})
const asst = (...parts: Array<ReturnType<typeof call> | { type: 'text'; text: string }>): ModelMessage => ({ role: 'assistant', content: parts })
const result = (id: string, value = `r-${id}`, name = 'bash') => ({ type: 'tool-result' as const, toolCallId: id, toolName: name, output: { type: 'text' as const, value } })
const tool = (...parts: Array<ReturnType<typeof result>>): ModelMessage => ({ role: 'tool', content: parts })

/** Every call answered exactly once, in the tool message right after its assistant message; no other results. */
function expectPaired(messages: ModelMessage[]): void {
  messages.forEach((m, i) => {
    const calls = m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((p) => p.type === 'tool-call').map((p) => (p as { toolCallId: string }).toolCallId) : []
    if (calls.length > 0) {
      const next = messages[i + 1]
      expect(next?.role).toBe('tool')
      const ids = (next?.content as Array<{ toolCallId: string }>).map((r) => r.toolCallId)
      expect(ids).toEqual(calls)
    } else if (m.role === 'tool') {
      const prev = messages[i - 1]
      expect(prev?.role).toBe('assistant')
    }
  })
  const all = messages.flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((p) => p.type === 'tool-call') : []))
  const ids = all.map((p) => (p as { toolCallId: string }).toolCallId)
  expect(new Set(ids).size).toBe(ids.length)
}

describe('validateHistory', () => {
  it('passes a valid history through unchanged, with no repairs', () => {
    const h = [user('hi'), asst({ type: 'text', text: 'ok' }, call('a'), call('b')), tool(result('a'), result('b')), asst({ type: 'text', text: 'done' })]
    const v = validateHistory(h)
    expect(v.repairs).toEqual([])
    expect(v.messages).toEqual(h)
  })

  it('closes dangling calls as interrupted, also when the history ends on them', () => {
    const v = validateHistory([user('go'), asst(call('a'), call('b')), tool(result('b')), user('again'), asst(call('c'))])
    expectPaired(v.messages)
    const firstTool = v.messages[2] as { content: Array<{ toolCallId: string; output: { value: string } }> }
    expect(firstTool.content.map((r) => r.toolCallId)).toEqual(['a', 'b'])
    expect(firstTool.content[0]?.output.value).toBe(INTERRUPTED_RESULT)
    expect((v.messages.at(-1) as { content: Array<{ output: { value: string } }> }).content[0]?.output.value).toBe(INTERRUPTED_RESULT)
    expect(v.repairs).toHaveLength(2)
  })

  it('drops duplicate results (keeps the first) and orphan results, and merges split tool messages in call order', () => {
    const v = validateHistory([
      user('go'),
      tool(result('ghost')), // before any call
      asst(call('a'), call('b')),
      tool(result('b', 'first b'), result('x')),
      tool(result('b', 'second b'), result('a')),
      user('next'),
      tool(result('a', 'late a')) // answers a step that is closed
    ])
    expectPaired(v.messages)
    expect(v.messages.filter((m) => m.role === 'tool')).toHaveLength(1)
    const t = v.messages[2] as { content: Array<{ toolCallId: string; output: { value: string } }> }
    expect(t.content.map((r) => [r.toolCallId, r.output.value])).toEqual([['a', 'r-a'], ['b', 'first b']])
    expect(v.repairs.join('\n')).toMatch(/ghost[\s\S]*x[\s\S]*second result for b[\s\S]*answers no call/)
  })

  it('renames a call id used in an earlier step and drops a repeated id within one step', () => {
    const v = validateHistory([user('go'), asst(call('a')), tool(result('a')), asst(call('a'), call('a')), tool(result('a', 'second step'))])
    expectPaired(v.messages)
    const second = v.messages[3] as { content: Array<{ toolCallId: string }> }
    expect(second.content.map((p) => p.toolCallId)).toEqual(['a_2'])
    expect((v.messages[4] as { content: Array<{ toolCallId: string; output: { value: string } }> }).content[0]).toMatchObject({ toolCallId: 'a_2', output: { value: 'second step' } })
  })

  it('gives a result the name of the call it answers and drops empty assistant messages', () => {
    const v = validateHistory([user('go'), { role: 'assistant', content: [] }, asst(call('a', 'glob')), tool(result('a', 'x', 'bash'))])
    expect(v.messages).toHaveLength(3)
    expect((v.messages[2] as { content: Array<{ toolName: string }> }).content[0]?.toolName).toBe('glob')
  })

  it.each<[string, ModelMessage[]]>([
    ['no user message', [asst({ type: 'text', text: 'hi' })]],
    ['a call without an id', [user('go'), asst(call(''))]],
    ['a tool result inside a user message', [{ role: 'user', content: [result('a')] } as unknown as ModelMessage]],
    ['a tool result inside an assistant message', [user('go'), { role: 'assistant', content: [result('a')] } as unknown as ModelMessage]],
    ['an unknown role', [user('go'), { role: 'robot', content: 'x' } as unknown as ModelMessage]],
    ['a non-result part in a tool message', [user('go'), asst(call('a')), { role: 'tool', content: [{ type: 'text', text: 'x' }] } as unknown as ModelMessage]]
  ])('refuses %s with a typed error', (_what, h) => {
    expect(() => validateHistory(h)).toThrow(HistoryInvalidError)
    try {
      validateHistory(h)
    } catch (err) {
      expect(err).toMatchObject({ code: 'history_invalid' })
    }
  })
})

describe('buildModelMessages runs the validator', () => {
  it('Stop during an approval wait, a crash mid-call or a dropped result: the call is closed as interrupted before the next request', () => {
    const events: SessionEvent[] = [
      { type: 'user_message', turnId: 't1', text: 'run it' },
      { type: 'assistant_message', turnId: 't1', text: '', toolCalls: [{ callId: 'a', name: 'bash', args: { command: 'npm test' } }, { callId: 'b', name: 'bash', args: { command: 'ls' } }] },
      { type: 'tool_call_started', turnId: 't1', callId: 'a', name: 'bash', args: { command: 'npm test' } },
      { type: 'approval_requested', requestId: 'r1', callId: 'a', tool: 'bash', args: { command: 'npm test' } } as unknown as SessionEvent,
      { type: 'turn_ended', turnId: 't1', reason: 'stopped' },
      { type: 'user_message', turnId: 't2', text: 'never mind' }
    ]
    const messages = buildModelMessages(events)
    expectPaired(messages)
    const results = messages.filter((m) => m.role === 'tool').flatMap((m) => m.content as Array<{ toolCallId: string; output: { value: string } }>)
    expect(results.map((r) => [r.toolCallId, r.output.value])).toEqual([['a', INTERRUPTED_RESULT], ['b', INTERRUPTED_RESULT]])
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'never mind' })
  })

  it('repairs a hostile event log: duplicate results, a result before its call, a finished event for an unknown call, repeated ids', () => {
    const t = 't1'
    const events: SessionEvent[] = [
      { type: 'tool_call_finished', turnId: t, callId: 'a', name: 'bash', isError: false, result: 'too early' },
      { type: 'user_message', turnId: t, text: 'go' },
      { type: 'assistant_message', turnId: t, text: '', toolCalls: [{ callId: 'a', name: 'bash', args: {} }, { callId: 'b', name: 'glob', args: {} }] },
      { type: 'tool_call_finished', turnId: t, callId: 'a', name: 'bash', isError: false, result: 'one' },
      { type: 'tool_call_finished', turnId: t, callId: 'a', name: 'bash', isError: false, result: 'two' },
      { type: 'tool_call_finished', turnId: t, callId: 'zzz', name: 'bash', isError: false, result: 'nobody' },
      { type: 'user_message', turnId: 't2', text: 'again' },
      { type: 'assistant_message', turnId: 't2', text: '', toolCalls: [{ callId: 'a', name: 'bash', args: {} }] }
    ]
    const notes: string[] = []
    const messages = buildModelMessages(events, (n) => notes.push(n))
    expectPaired(messages)
    const results = messages.filter((m) => m.role === 'tool').flatMap((m) => m.content as Array<{ toolCallId: string; output: { value: string } }>)
    expect(results.map((r) => [r.toolCallId, r.output.value])).toEqual([['a', 'one'], ['b', INTERRUPTED_RESULT], ['a_2', INTERRUPTED_RESULT]])
    expect(notes.length).toBeGreaterThan(0)
  })
})
