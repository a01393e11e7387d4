import { describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../shared/events'
import { initialState, OUTPUT_TAIL_CHARS, reduce, type TuiState } from './tui-state'
import { borderTitle } from './panels'

let seq = 0
const env = (event: SessionEvent, time = 1000): EventEnvelope => ({ sessionId: 's1', seq: ++seq, time, event })
const run = (events: Array<SessionEvent | [SessionEvent, number]>): TuiState =>
  events.reduce((s, e) => reduce(s, Array.isArray(e) ? env(e[0], e[1]) : env(e)), initialState('s1'))

describe('the interactive CLI state', () => {
  it('streams text into one assistant item and times tool rows', () => {
    const s = run([
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      { type: 'text_delta', turnId: 't', text: '# Hi' },
      { type: 'text_delta', turnId: 't', text: ' there' },
      [{ type: 'tool_call_started', turnId: 't', callId: 'c', name: 'bash', args: { command: 'ls' } }, 1000],
      { type: 'tool_output', turnId: 't', callId: 'c', stream: 'stdout', chunk: 'x'.repeat(OUTPUT_TAIL_CHARS + 10) },
      [{ type: 'tool_call_finished', turnId: 't', callId: 'c', name: 'bash', isError: false, result: 'ok' }, 3500]
    ])
    expect(s.items.map((i) => i.kind)).toEqual(['assistant', 'tool'])
    expect(s.items[0]).toMatchObject({ text: '# Hi there', done: true })
    const tool = s.items[1]
    expect(tool?.kind === 'tool' && tool.endedAt! - tool.startedAt).toBe(2500)
    expect(tool?.kind === 'tool' && tool.output.length).toBe(OUTPUT_TAIL_CHARS)
    expect(s.running).toBe(true)
  })

  it('puts what the MCP schemas cost in the status line and says when a server asks a question (ADR 0034)', () => {
    const s = run([
      { type: 'mcp_schemas', tools: 200, deferred: 197, tokens: 46_714, sentTokens: 702, budget: 12_800 },
      { type: 'mcp_elicitation_requested', requestId: 'q1', server: 'deployer', message: 'Where to?', fields: {}, required: [] }
    ])
    expect(s.mcpText).toBe('mcp 702/46.7k tokens, 46k saved (197 deferred)')
    expect(JSON.stringify(s.items.at(-1))).toContain('deployer asks: Where to?')
    expect(run([{ type: 'mcp_schemas', tools: 0, deferred: 0, tokens: 0, sentTokens: 0, budget: 12_800 }]).mcpText).toBe('')
  })

  it('keeps queued messages until delivered and approvals until resolved', () => {
    let s = run([
      { type: 'message_queued', queueId: 'q1', text: 'also this' },
      { type: 'approval_requested', turnId: 't', requestId: 'r1', callId: 'c', tool: 'bash', args: { command: 'rm -rf x' }, suggestedRule: 'rm *' }
    ])
    expect(s.queued).toEqual([{ queueId: 'q1', text: 'also this' }])
    expect(s.approvals.map((a) => a.requestId)).toEqual(['r1'])
    s = reduce(s, env({ type: 'user_message', turnId: 't', text: 'also this', queueId: 'q1' }))
    s = reduce(s, env({ type: 'approval_resolved', turnId: 't', requestId: 'r1', callId: 'c', outcome: 'allowed', decision: 'allow_always', rule: { id: 'r', tool: 'bash', kind: 'allow', pattern: 'rm *', createdAt: 1 } }))
    expect(s.queued).toEqual([])
    expect(s.approvals).toEqual([])
    expect(s.items.at(-1)).toMatchObject({ kind: 'notice', text: 'allowed (allow always) · rule stored: allow bash rm *' })
  })

  it('puts the mode, the goal progress and the lock on the composer border', () => {
    const s = run([
      { type: 'mode_changed', mode: 'agent' },
      { type: 'goal_updated', goal: { text: 'make the tests pass' }, state: 'active', turnsUsed: 2, turnBudget: 8, tokensUsed: 10, tokenBudget: null }
    ])
    expect(borderTitle(s.mode, s.goal, s.lock)).toBe('Agent — Goal · 2/8')
    const locked = reduce(reduce(s, env({ type: 'mode_changed', mode: 'plan' })), env({ type: 'lock_changed', lock: { kind: 'plan' } }))
    expect(borderTitle(locked.mode, null, locked.lock)).toBe('Plan · locked (plan)')
  })

  it('notes what a mode switch ended in the guest, and nothing when it ended nothing (ADR 0019)', () => {
    const s = run([{ type: 'mode_changed', mode: 'plan', endedProcesses: 3 }, { type: 'mode_changed', mode: 'agent' }])
    expect(s.mode).toBe('agent')
    expect(s.items).toMatchObject([{ kind: 'notice', text: 'mode plan: ended 3 background processes', tone: 'dim' }])
  })

  it('shows the text of a replayed assistant message once (no deltas in the log)', () => {
    const replayed = run([{ type: 'assistant_message', turnId: 't', text: 'from the log', toolCalls: [] }])
    expect(replayed.items).toMatchObject([{ kind: 'assistant', text: 'from the log', done: true }])
    const live = run([{ type: 'text_delta', turnId: 't', text: 'live' }, { type: 'assistant_message', turnId: 't', text: 'live', toolCalls: [] }])
    expect(live.items).toMatchObject([{ kind: 'assistant', text: 'live', done: true }])
  })

  it('ignores other sessions', () => {
    const s = reduce(initialState('s1'), { sessionId: 's2', seq: 1, time: 1, event: { type: 'mode_changed', mode: 'ask' } })
    expect(s.mode).toBe('agent')
  })

  it('warns of a turn whose changes were not recorded and counts files beyond a turn_changes list', () => {
    const s = run([
      { type: 'checkpoint_failed', turnId: 't', stage: 'before', reason: 'the snapshot before the turn failed: EACCES' },
      { type: 'turn_changes', turnId: 't2', files: [{ path: 'a', status: 'added', additions: 0, deletions: 0 }], more: 59_999 }
    ])
    expect(s.items).toMatchObject([
      { kind: 'notice', tone: 'warn', text: "this turn's changes were not recorded: the snapshot before the turn failed: EACCES" },
      { kind: 'notice', text: '60000 files changed: a and 59999 more' }
    ])
  })
})

describe('reasoning in the interactive CLI', () => {
  it('shows each stretch of reasoning as one dim row with its duration, above the answer, and the level when set', () => {
    const s = run([
      { type: 'thinking_changed', level: 'medium' },
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      { type: 'reasoning_delta', turnId: 't', text: 'hidden while streaming' },
      { type: 'reasoning_done', turnId: 't', text: 'hidden while streaming', durationMs: 2300 },
      { type: 'text_delta', turnId: 't', text: 'Answer.' }
    ])
    expect(s.items.map((i) => (i.kind === 'notice' ? i.text : i.kind))).toEqual(['thinking: medium', '✻ Thought for 2.3 s', 'assistant'])
    expect(s.items[1]).toMatchObject({ tone: 'dim' })
  })
})
