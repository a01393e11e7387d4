/** The renderer's event reducer: streaming text, tool rows, terminal transcript, dedupe. */
import { describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../../shared/events'
import { reduceEnvelope, type SessionView } from './reduce-event'

function run(events: SessionEvent[]): SessionView {
  let views: Record<string, SessionView> = {}
  events.forEach((event, i) => {
    const envelope: EventEnvelope = { sessionId: 's', seq: i + 1, time: 0, event }
    views = reduceEnvelope(views, envelope)
  })
  const view = views.s
  if (!view) throw new Error('no view')
  return view
}

describe('reduceEnvelope', () => {
  it('joins text deltas into one row per stretch of text and skips the streamed assistant_message', () => {
    const v = run([
      { type: 'session_opened', repo: '/r', mode: 'agent' },
      { type: 'user_message', turnId: 't', text: 'hi' },
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      { type: 'text_delta', turnId: 't', text: 'Hel' },
      { type: 'text_delta', turnId: 't', text: 'lo' },
      { type: 'assistant_message', turnId: 't', text: 'Hello', toolCalls: [{ callId: 'c', name: 'glob', args: {} }] },
      { type: 'tool_call_started', turnId: 't', callId: 'c', name: 'glob', args: { pattern: '*' } },
      { type: 'tool_call_finished', turnId: 't', callId: 'c', name: 'glob', isError: false, result: 'a.txt' },
      { type: 'text_delta', turnId: 't', text: 'Done' },
      { type: 'turn_ended', turnId: 't', reason: 'completed' }
    ])
    expect(v.repo).toBe('/r')
    expect(v.running).toBe(false)
    expect(v.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool', 'assistant', 'turn_end'])
    // the step's assistant_message marks the streamed row final (shown without the render throttle)
    expect(v.items[1]).toMatchObject({ text: 'Hello', done: true })
    expect(v.items[2]).toMatchObject({ name: 'glob', status: 'ok', result: 'a.txt', args: { pattern: '*' } })
    expect(v.items[3]).toMatchObject({ text: 'Done' })
  })

  it('a guest state arriving mid-text goes above the streaming row, and the text stays one row', () => {
    const v = run([
      { type: 'session_opened', repo: '/r', mode: 'agent' },
      { type: 'user_message', turnId: 't', text: 'hi' },
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      { type: 'text_delta', turnId: 't', text: 'Let me look at ' },
      { type: 'guest_status', state: 'ready' },
      { type: 'text_delta', turnId: 't', text: 'the repository.' },
      { type: 'turn_ended', turnId: 't', reason: 'completed' }
    ])
    expect(v.items.map((i) => i.kind)).toEqual(['user', 'guest', 'assistant', 'turn_end'])
    expect(v.items[2]).toMatchObject({ text: 'Let me look at the repository.' })
  })

  it('adds a row for an assistant_message that was not streamed', () => {
    const v = run([{ type: 'assistant_message', turnId: 't', text: 'Replayed', toolCalls: [] }])
    expect(v.items).toEqual([{ kind: 'assistant', id: 'e1', turnId: 't', text: 'Replayed' }])
  })

  it('drops late tool_output of an earlier turn whose call id a newer turn reuses', () => {
    const v = run([
      { type: 'tool_call_started', turnId: 't1', callId: 'call_0', name: 'bash', args: { command: 'a' } },
      { type: 'tool_call_finished', turnId: 't1', callId: 'call_0', name: 'bash', isError: false, result: 'ok' },
      { type: 'tool_call_started', turnId: 't2', callId: 'call_0', name: 'bash', args: { command: 'b' } },
      { type: 'tool_output', turnId: 't1', callId: 'call_0', stream: 'stdout', chunk: 'late\n' },
      { type: 'tool_output', turnId: 't2', callId: 'call_0', stream: 'stdout', chunk: 'mine\n' }
    ])
    expect(v.items[1]).toMatchObject({ turnId: 't2', output: 'mine\n' })
    expect(v.terminal.text()).not.toContain('late')
  })

  it('sends bash output to the terminal and the tool row, other tools only to the row', () => {
    const v = run([
      { type: 'tool_call_started', turnId: 't', callId: 'b', name: 'bash', args: { command: 'ls' } },
      { type: 'tool_output', turnId: 't', callId: 'b', stream: 'stdout', chunk: 'a\n' },
      { type: 'tool_output', turnId: 't', callId: 'b', stream: 'stderr', chunk: 'oops\n' },
      { type: 'tool_call_started', turnId: 't', callId: 'g', name: 'grep', args: {} },
      { type: 'tool_output', turnId: 't', callId: 'g', stream: 'stdout', chunk: 'match' },
      { type: 'tool_call_finished', turnId: 't', callId: 'b', name: 'bash', isError: true, result: 'exit 1' }
    ])
    expect(v.terminal.text()).toContain('$ ls')
    expect(v.terminal.text()).toContain('a\n')
    expect(v.terminal.text()).toContain('oops')
    expect(v.terminal.text()).not.toContain('match')
    expect(v.items[0]).toMatchObject({ status: 'error', output: 'a\noops\n', result: 'exit 1' })
    expect(v.items[1]).toMatchObject({ output: 'match', status: 'running' })
  })

  it('ignores duplicate envelopes and shows each guest state once', () => {
    let views: Record<string, SessionView> = {}
    const e: EventEnvelope = { sessionId: 's', seq: 1, time: 0, event: { type: 'guest_status', state: 'ready' } }
    views = reduceEnvelope(views, e)
    const same = reduceEnvelope(views, e)
    expect(same).toBe(views)
    views = reduceEnvelope(views, { ...e, seq: 2, event: { type: 'guest_status', state: 'ready', detail: 'abc' } })
    expect(views.s?.items).toHaveLength(1)
    expect(views.s?.guest).toEqual({ state: 'ready', detail: 'abc' })
  })

  it('keeps plan, todos and mode', () => {
    const plan = { title: 'P', summary: '', steps: ['a'], mermaid: 'graph TD; A-->B' }
    const v = run([
      { type: 'plan_updated', plan },
      { type: 'todos_updated', todos: [{ content: 'x', status: 'pending' }] },
      { type: 'mode_changed', mode: 'plan' }
    ])
    expect(v.plan).toEqual(plan)
    expect(v.todos).toHaveLength(1)
    expect(v.mode).toBe('plan')
  })

  it('says on the mode row what the switch ended in the guest (ADR 0019)', () => {
    const v = run([
      { type: 'mode_changed', mode: 'plan', endedProcesses: 2 },
      { type: 'mode_changed', mode: 'agent' },
      { type: 'mode_changed', mode: 'ask', endedProcesses: 1, endError: '1 process still running after 3000 ms' }
    ])
    expect(v.items).toMatchObject([
      { kind: 'mode', mode: 'plan', note: 'ended 2 background processes', warn: false },
      { kind: 'mode', mode: 'agent' },
      { kind: 'mode', mode: 'ask', note: 'ended 1 background process; 1 process still running after 3000 ms', warn: true }
    ])
    expect(v.items[1]).not.toHaveProperty('note')
  })

  it('a bash row that exited non-zero (or was killed) is failed, exit 0 is ok, other tools go by isError (issue 18)', () => {
    const call = (callId: string, name: string, result: string) => [
      { type: 'tool_call_started', turnId: 't', callId, name, args: {} },
      { type: 'tool_call_finished', turnId: 't', callId, name, isError: false, result }
    ] as SessionEvent[]
    const v = run([
      { type: 'session_opened', repo: '/r', mode: 'agent' },
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      ...call('a', 'bash', 'exit_code: 127\nduration_ms: 3\nstdout: (empty)\nstderr:\nbash: npm: command not found'),
      ...call('b', 'bash', 'exit_code: 0\nduration_ms: 3\nstdout:\nok'),
      ...call('c', 'bash', 'exit_code: none\nsignal: SIGKILL'),
      ...call('d', 'read_file', 'exit_code: 1')
    ])
    expect(v.items.filter((i) => i.kind === 'tool').map((i) => (i as { status: string }).status)).toEqual(['error', 'ok', 'error', 'ok'])
  })
})
