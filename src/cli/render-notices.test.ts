// The CLI's usage line at a turn's end, the resume notice (a warning when the log lost records or a
// crash left calls running) and the instructions line; model ids from the log are made terminal-safe.
import { describe, expect, it } from 'vitest'
import { renderEvents } from '../../test/support/cli-render'

describe('CLI notices', () => {
  it('prints the turn usage, with the cost only when the price is known', () => {
    const priced = renderEvents([{ type: 'turn_ended', turnId: 't', reason: 'completed', usage: { requests: 2, inputTokens: 12_345, cachedInputTokens: 10_000, outputTokens: 845, costUsd: 0.0123 } }])
    expect(priced.err).toBe('usage: 12.3k in (10.0k cached) · 845 out · $0.0123\n')
    const unpriced = renderEvents([{ type: 'turn_ended', turnId: 't', reason: 'completed', usage: { requests: 1, inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 } }])
    expect(unpriced.err).toBe('usage: 10 in · 5 out\n')
    expect(renderEvents([{ type: 'turn_ended', turnId: 't', reason: 'completed' }]).err).toBe('')
  })

  it('warns on a resume that skipped records or closed crashed calls, quietly notes a clean one', () => {
    const warned = renderEvents([{ type: 'session_resumed', skipped: 3, interruptedCalls: 1, interruptedTurn: 't', provider: 'anthropic', model: 'claude\u001b[2J-x' }])
    expect(warned.err).toBe('warning: resumed with anthropic · claude-x · 3 damaged log records skipped · 1 tool call left running by a crash closed as interrupted\n')
    expect(renderEvents([{ type: 'session_resumed', skipped: 0, interruptedCalls: 0, provider: 'openai' }]).err).toBe('resumed with openai\n')
  })

  it('says where instructions came from and when they were cut', () => {
    expect(renderEvents([{ type: 'instructions_loaded', file: 'AGENTS.md', bytes: 120, truncated: false }]).err).toBe('instructions loaded from AGENTS.md\n')
    expect(renderEvents([{ type: 'instructions_loaded', file: 'CLAUDE.md', bytes: 90_000, truncated: true }]).err).toBe('instructions loaded from CLAUDE.md (cut at 90000 bytes)\n')
  })
})
