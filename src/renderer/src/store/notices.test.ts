// Session notices and usage in the view: a resume and loaded instructions become notice rows (a
// warning when something was lost or cut), per-request usage adds no row, and a turn's totals ride
// on its turn_end row as the footer text.
import { describe, expect, it } from 'vitest'
import { applyEvent, emptyView, turnFooter } from './reduce-event'

describe('notices and usage in the view', () => {
  it('resume and instructions become notice rows', () => {
    let view = applyEvent(emptyView('s'), { type: 'session_resumed', skipped: 2, interruptedCalls: 1, interruptedTurn: 't' }, 1)
    view = applyEvent(view, { type: 'session_resumed', skipped: 0, interruptedCalls: 0 }, 2)
    view = applyEvent(view, { type: 'instructions_loaded', file: 'AGENTS.md', bytes: 10, truncated: false }, 3)
    expect(view.items).toEqual([
      { kind: 'notice', id: 'e1', warn: true, text: 'session resumed · 2 damaged log records skipped · 1 tool call left running by a crash closed as interrupted' },
      { kind: 'notice', id: 'e2', warn: false, text: 'session resumed' },
      { kind: 'notice', id: 'e3', warn: false, text: 'instructions loaded from AGENTS.md' }
    ])
  })

  it('usage adds no row; the turn end carries the totals shown in its footer', () => {
    let view = applyEvent(emptyView('s'), { type: 'usage', turnId: 't', model: 'gpt-5', inputTokens: 1500, cachedInputTokens: 0, outputTokens: 20, costUsd: 0.002 }, 1)
    expect(view.items).toEqual([])
    const usage = { requests: 1, inputTokens: 1500, cachedInputTokens: 0, outputTokens: 20, costUsd: 0.002 }
    view = applyEvent(view, { type: 'turn_ended', turnId: 't', reason: 'completed', usage }, 2)
    expect(view.items[0]).toMatchObject({ kind: 'turn_end', usage })
    expect(turnFooter(usage)).toBe('1.5k in · 20 out · $0.0020')
  })
})
