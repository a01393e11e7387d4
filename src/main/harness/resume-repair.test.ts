// findOpenTurn: the turn and calls a crash leaves open, and nothing for logs whose turns all ended.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../shared/events'
import { findOpenTurn } from './resume-repair'

const started = (turnId: string): SessionEvent => ({ type: 'turn_started', turnId, mode: 'agent' })
const asked = (turnId: string, ...ids: string[]): SessionEvent => ({
  type: 'assistant_message', turnId, text: '', toolCalls: ids.map((callId) => ({ callId, name: 'bash', args: { command: 'x' } }))
})
const done = (turnId: string, callId: string): SessionEvent => ({ type: 'tool_call_finished', turnId, callId, name: 'bash', isError: false, result: 'ok' })

describe('findOpenTurn', () => {
  it('is null when every turn ended', () => {
    expect(findOpenTurn([started('t1'), asked('t1', 'a'), done('t1', 'a'), { type: 'turn_ended', turnId: 't1', reason: 'completed' }])).toBeNull()
    expect(findOpenTurn([])).toBeNull()
  })

  it('names the open turn and only its unanswered calls, comparing ids within the turn', () => {
    const events: SessionEvent[] = [
      started('t1'), asked('t1', 'call_0'), { type: 'turn_ended', turnId: 't1', reason: 'stopped' }, // t1's call_0 never answered, but t1 ended
      started('t2'), asked('t2', 'call_0', 'call_1'), done('t2', 'call_0'), asked('t2', 'call_2')
    ]
    expect(findOpenTurn(events)).toEqual({ turnId: 't2', calls: [{ callId: 'call_1', name: 'bash' }, { callId: 'call_2', name: 'bash' }] })
  })

  it('an open turn before any model answer has no calls', () => {
    expect(findOpenTurn([started('t1')])).toEqual({ turnId: 't1', calls: [] })
  })
})
