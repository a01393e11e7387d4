// The session view after compaction events: the context line, the "compacted 143k → 21k tokens"
// notice, the compacted rows marked (kept visible), a failed compaction as a warning.
import { describe, expect, it } from 'vitest'
import { applyEvent, emptyView } from './reduce-event'

describe('compaction in the session view', () => {
  it('shows the context use, marks the rows before a compaction and notes it', () => {
    let v = emptyView('s')
    v = applyEvent(v, { type: 'user_message', turnId: 't', text: 'hi' }, 1)
    v = applyEvent(v, { type: 'context_usage', turnId: 't', tokens: 124_000, window: 200_000, threshold: 0.8 }, 2)
    expect(v.context?.label).toBe('context 62% of 200k')
    v = applyEvent(v, { type: 'compaction_finished', trigger: 'manual', method: 'summary', tokensBefore: 143_000, tokensAfter: 21_000, summary: 's', keep: { userMessages: [], todos: [], files: [] }, tailEvents: 0 }, 3)
    expect(v.compactedBefore).toBe(1)
    expect(v.items.at(-1)).toMatchObject({ kind: 'notice', text: expect.stringContaining('compacted 143k → 21k tokens') })
    expect(v.context?.label).toBe('context 11% of 200k')
    v = applyEvent(v, { type: 'compaction_failed', trigger: 'auto', reason: 'the summariser failed (HTTP 500)' }, 4)
    expect(v.items.at(-1)).toMatchObject({ kind: 'notice', warn: true, text: 'compaction stopped: the summariser failed (HTTP 500)' })
    expect(v.items[0]).toMatchObject({ kind: 'user', text: 'hi' }) // nothing removed
  })
})
