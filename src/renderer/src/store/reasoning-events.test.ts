// The model's reasoning in the session view: one row per stretch, growing while it streams, closed
// with its duration ("Thought for 1.5 s"); on a replay (no deltas in the log) the row comes from
// reasoning_done alone, before the answer; the session's thinking level follows thinking_changed.
import { describe, expect, it } from 'vitest'
import { applyEvent, emptyView } from './reduce-event'

describe('reasoning in the session view', () => {
  it('streams into one row, closes it with the duration, then the answer streams below it', () => {
    let v = emptyView('s')
    v = applyEvent(v, { type: 'turn_started', turnId: 't', mode: 'agent' }, 1)
    v = applyEvent(v, { type: 'reasoning_delta', turnId: 't', text: '' }, 2)
    v = applyEvent(v, { type: 'reasoning_delta', turnId: 't', text: 'Let me ' }, 3)
    v = applyEvent(v, { type: 'reasoning_delta', turnId: 't', text: 'look.' }, 4)
    expect(v.items).toEqual([{ kind: 'reasoning', id: 'e2', turnId: 't', text: 'Let me look.', done: false }])
    v = applyEvent(v, { type: 'reasoning_done', turnId: 't', text: 'Let me look.', durationMs: 1500 }, 5)
    v = applyEvent(v, { type: 'text_delta', turnId: 't', text: 'Done.' }, 6)
    expect(v.items.map((i) => i.kind)).toEqual(['reasoning', 'assistant'])
    expect(v.items[0]).toMatchObject({ kind: 'reasoning', done: true, durationMs: 1500, text: 'Let me look.' })
  })

  it('rebuilds the row from reasoning_done on a replay, and keeps the thinking level', () => {
    let v = emptyView('s')
    v = applyEvent(v, { type: 'thinking_changed', level: 'high' }, 1)
    v = applyEvent(v, { type: 'reasoning_done', turnId: 't', text: '', durationMs: 300, redacted: true }, 2)
    v = applyEvent(v, { type: 'assistant_message', turnId: 't', text: 'Hi.', toolCalls: [], reasoning: [{ text: '', providerMetadata: { anthropic: { redactedData: 'x' } } }] }, 3)
    expect(v.thinking).toBe('high')
    expect(v.items.map((i) => i.kind)).toEqual(['reasoning', 'assistant'])
    expect(v.items[0]).toMatchObject({ done: true, redacted: true, durationMs: 300 })
  })
})
