// Queued messages and model waits in the view: queued until delivered (user_message with the
// queueId) or removed; the wait line follows model_waiting; a retry drops the failed attempt's text.
import { describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../../shared/events'
import { modelWaitText } from './queue-events'
import { reduceEnvelope, type SessionView } from './reduce-event'

function run(events: SessionEvent[]): SessionView {
  let views: Record<string, SessionView> = {}
  events.forEach((event, i) => {
    const envelope: EventEnvelope = { sessionId: 's', seq: i + 1, time: 0, event }
    views = reduceEnvelope(views, envelope)
  })
  return views.s!
}

describe('queued messages in the view', () => {
  it('shows a message as queued until it is delivered or removed', () => {
    const base: SessionEvent[] = [
      { type: 'user_message', turnId: 't', text: 'Run the slow ticker' },
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      { type: 'message_queued', queueId: 'q1', text: 'Are you still there?' },
      { type: 'message_queued', queueId: 'q2', text: 'never mind' }
    ]
    expect(run(base).queued).toEqual([{ queueId: 'q1', text: 'Are you still there?' }, { queueId: 'q2', text: 'never mind' }])
    const v = run([...base, { type: 'queued_removed', queueId: 'q2' }, { type: 'user_message', turnId: 't', text: 'Are you still there?', queueId: 'q1' }])
    expect(v.queued).toEqual([])
    expect(v.items.filter((i) => i.kind === 'user').map((i) => (i.kind === 'user' ? i.text : ''))).toEqual(['Run the slow ticker', 'Are you still there?'])
  })
})

describe('model waits in the view', () => {
  it('shows the wait while no token arrives and clears it when the stream moves', () => {
    const waiting = run([{ type: 'turn_started', turnId: 't', mode: 'agent' }, { type: 'model_waiting', turnId: 't', waitedMs: 12_400 }])
    expect(modelWaitText(waiting.modelWait!)).toBe('waiting for the model · 12 s')
    expect(run([{ type: 'model_waiting', turnId: 't', waitedMs: 5000 }, { type: 'model_waiting', turnId: 't', waitedMs: 0 }]).modelWait).toBeNull()
  })

  it('drops the text a failed attempt streamed and shows the retry', () => {
    const v = run([
      { type: 'turn_started', turnId: 't', mode: 'agent' },
      { type: 'text_delta', turnId: 't', text: 'Thin' },
      { type: 'model_retrying', turnId: 't', attempt: 2, delayMs: 2000, reason: 'HTTP 429' },
      { type: 'text_delta', turnId: 't', text: 'Thinking again' }
    ])
    expect(v.modelWait).toMatchObject({ retry: { reason: 'HTTP 429' } }) // cleared by the harness's model_waiting 0 when the stream moves
    expect(v.items).toEqual([expect.objectContaining({ kind: 'assistant', text: 'Thinking again' })])
    expect(modelWaitText({ turnId: 't', waitedMs: 0, retry: { attempt: 2, delayMs: 2000, reason: 'HTTP 429' } })).toBe('HTTP 429 — retrying in 2 s (attempt 2)')
  })
})
