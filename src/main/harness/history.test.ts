// Tests of history rebuilding: pairing, grouping and closing interrupted tool calls.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../shared/events'
import { INTERRUPTED_RESULT, INVALID_TOOL_NAME, MAX_TOOL_ARGS_BYTES, buildModelMessages, capToolArgs } from './history'

describe('buildModelMessages', () => {
  it('pairs tool calls with results and closes unanswered calls as interrupted', () => {
    const events: SessionEvent[] = [
      { type: 'user_message', turnId: 't1', text: 'hi' },
      { type: 'text_delta', turnId: 't1', text: 'ignored' },
      {
        type: 'assistant_message',
        turnId: 't1',
        text: 'looking',
        toolCalls: [
          { callId: 'a', name: 'glob', args: { pattern: '*' } },
          { callId: 'b', name: 'read_file', args: '{"path":' }
        ]
      },
      { type: 'tool_call_finished', turnId: 't1', callId: 'a', name: 'glob', isError: false, result: 'x.txt' },
      { type: 'user_message', turnId: 't2', text: 'again' }
    ]
    const messages = buildModelMessages(events)
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    const tool = messages[2]
    if (tool?.role !== 'tool') throw new Error('expected tool message')
    expect(tool.content.map((p) => (p.type === 'tool-result' ? [p.toolCallId, p.output] : null))).toEqual([
      ['a', { type: 'text', value: 'x.txt' }],
      ['b', { type: 'error-text', value: INTERRUPTED_RESULT }]
    ])
    const assistant = messages[1]
    if (assistant?.role !== 'assistant' || typeof assistant.content === 'string') throw new Error('expected parts')
    expect(assistant.content[2]).toMatchObject({ type: 'tool-call', toolCallId: 'b', input: { _raw: '{"path":' } })
  })

  it('drops empty assistant messages', () => {
    const messages = buildModelMessages([
      { type: 'user_message', turnId: 't1', text: 'hi' },
      { type: 'assistant_message', turnId: 't1', text: '', toolCalls: [] }
    ])
    expect(messages).toEqual([{ role: 'user', content: 'hi' }])
  })

  it('replays an over-cap argument from an older log truncated, and an invalid name as invalid_tool_name', () => {
    const big = 'y'.repeat(MAX_TOOL_ARGS_BYTES + 1)
    const messages = buildModelMessages([
      { type: 'user_message', turnId: 't1', text: 'hi' },
      { type: 'assistant_message', turnId: 't1', text: '', toolCalls: [
        { callId: 'a', name: 'write_file', args: { path: 'x', content: big } },
        { callId: 'b', name: '../x', args: big }
      ] }
    ])
    const assistant = messages[1]
    if (assistant?.role !== 'assistant' || typeof assistant.content === 'string') throw new Error('expected parts')
    expect(JSON.stringify(assistant.content).length).toBeLessThan(10_000)
    expect(assistant.content[0]).toMatchObject({ toolName: 'write_file', input: { _bytes: JSON.stringify({ path: 'x', content: big }).length } })
    expect(assistant.content[1]).toMatchObject({ toolName: INVALID_TOOL_NAME, input: { _truncated: expect.stringContaining('cap') } })
    expect(capToolArgs({ a: 1 })).toEqual({ args: { a: 1 }, bytes: 7, truncated: false })
  })
})
