// The CLI's compaction lines: "compacted 143k → 21k tokens" when a compaction finishes, why it
// stopped when it fails, and "context 62% of 200k" beside the turn's usage.
import { describe, expect, it } from 'vitest'
import { renderEvents } from '../../test/support/cli-render'

const keep = { userMessages: ['go'], todos: [], files: [] }

describe('CLI compaction lines', () => {
  it('prints the compaction and the context use with the turn usage', () => {
    const { err } = renderEvents([
      { type: 'compaction_started', turnId: 't', trigger: 'auto', tokensBefore: 143_210 },
      { type: 'compaction_finished', turnId: 't', trigger: 'auto', method: 'summary', tokensBefore: 143_210, tokensAfter: 21_040, summary: 's', keep, tailEvents: 2 },
      { type: 'context_usage', turnId: 't', tokens: 124_000, window: 200_000, threshold: 0.8 },
      { type: 'turn_ended', turnId: 't', reason: 'completed', usage: { requests: 1, inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 } }
    ])
    expect(err).toBe('compacting the history (auto)…\ncompacted 143k → 21k tokens\nusage: 10 in · 5 out · context 62% of 200k\n')
  })

  it('says why a compaction stopped', () => {
    expect(renderEvents([{ type: 'compaction_failed', trigger: 'manual', reason: 'the summariser failed (HTTP 500)' }]).err).toBe('compaction stopped: the summariser failed (HTTP 500)\n')
  })
})
