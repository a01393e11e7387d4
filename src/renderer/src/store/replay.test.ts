/** A history replay equals reducing its envelopes one by one; live events batch per frame, in order. */
import { describe, expect, it, vi } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../../shared/events'
import { ingestBatcher } from './ingest-batch'
import { emptyView, reduceEnvelope, type SessionView } from './reduce-event'
import { replayHistory } from './replay'

function envelopes(turns: number): EventEnvelope[] {
  const events: SessionEvent[] = [{ type: 'session_opened', repo: '/r', mode: 'agent' }]
  for (let t = 0; t < turns; t++) {
    const turnId = `t${t}`
    events.push(
      { type: 'user_message', turnId, text: `q${t}` },
      { type: 'turn_started', turnId, mode: 'agent' },
      { type: 'tool_call_started', turnId, callId: 'call_0', name: 'bash', args: { command: `echo ${t}` } },
      { type: 'tool_call_finished', turnId, callId: 'call_0', name: 'bash', isError: false, result: `${t}`, output: `${t}\n` },
      { type: 'assistant_message', turnId, text: `a${t}`, toolCalls: [] },
      { type: 'turn_ended', turnId, reason: 'completed' }
    )
  }
  return events.map((event, i) => ({ sessionId: 's', seq: i + 1, time: 1000 * i, event }))
}

describe('replayHistory', () => {
  it('gives the view that reducing the envelopes one by one gives, durations included', () => {
    const list = envelopes(50)
    const oneByOne = list.reduce(reduceEnvelope, { s: emptyView('s') } as Record<string, SessionView>).s
    const replayed = replayHistory('s', [...list, ...list.slice(0, 3)]) // duplicates skipped
    expect(replayed.items).toEqual(oneByOne?.items)
    expect(replayed.lastSeq).toBe(oneByOne?.lastSeq)
    expect(replayed.terminal.text()).toBe(oneByOne?.terminal.text())
    expect(replayed.items.filter((i) => i.kind === 'turn_end').every((i) => i.kind === 'turn_end' && i.durationMs === 4000)).toBe(true)
  })

  it('hands out an items array of its own (later live rows never alias it)', () => {
    const view = replayHistory('s', envelopes(2))
    const next = reduceEnvelope({ s: view }, { sessionId: 's', seq: 100, time: 0, event: { type: 'user_message', turnId: 'x', text: 'later' } }).s
    expect(next?.items.length).toBe(view.items.length + 1)
  })
})

describe('ingestBatcher', () => {
  it('applies everything received since the last batch, in order, once', async () => {
    const batches: number[][] = []
    const b = ingestBatcher((batch) => batches.push(batch.map((e) => e.seq)))
    for (const e of envelopes(1)) b.push(e)
    expect(batches).toEqual([])
    // the batch comes on the next frame or the fallback timer: wait for it, with a deadline
    await vi.waitFor(() => expect(batches).toEqual([[1, 2, 3, 4, 5, 6, 7]]), { timeout: 5_000, interval: 5 })
    b.push(envelopes(1)[0] as EventEnvelope)
    b.flush()
    expect(batches).toHaveLength(2)
  })
})
