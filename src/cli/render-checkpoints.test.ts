// The CLI says when a turn's changes could not be recorded (checkpoint_failed), with the reason and
// no control sequences from it, and counts the files a long turn_changes left out of its list.
import { describe, expect, it } from 'vitest'
import { renderEvents } from '../../test/support/cli-render'

describe('checkpoint events on the CLI', () => {
  it('prints a warning for a turn whose changes were not recorded', () => {
    const { out, err } = renderEvents([
      { type: 'checkpoint_failed', turnId: 't', stage: 'before', reason: 'the snapshot before the turn failed: EACCES\u001b[2J' }
    ])
    expect(err).toBe("warning: this turn's changes were not recorded (cortex changes and rewind cannot show or undo them): the snapshot before the turn failed: EACCES\n")
    expect(out).toBe('')
  })

  it('counts every changed file of a turn, also those beyond its listed ones', () => {
    const files = Array.from({ length: 1000 }, (_, i) => ({ path: `node_modules/p/${i}`, status: 'added' as const, additions: 0, deletions: 0 }))
    const { err } = renderEvents([{ type: 'turn_changes', turnId: 't', files, more: 59_000 }])
    expect(err).toMatch(/^60000 files changed: \+node_modules\/p\/0 .* …/)
  })
})
