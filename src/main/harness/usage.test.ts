// usageEvent / turnUsage / priceOf: cached tokens priced at the cache rates, dated ids matched by
// prefix, unknown models without a cost, and a turn's totals summed back to its start.
import { describe, expect, it } from 'vitest'
import type { LanguageModelUsage } from 'ai'
import type { SessionEvent } from '../../shared/events'
import { formatUsage } from '../../shared/usage'
import { priceOf } from '../providers/prices'
import { MAX_REQUEST_TOKENS, turnUsage, usageEvent } from './usage'

const sdkUsage = (input: number, cacheRead: number, cacheWrite: number, output: number): LanguageModelUsage => ({
  inputTokens: input,
  inputTokenDetails: { noCacheTokens: input - cacheRead - cacheWrite, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite },
  outputTokens: output,
  outputTokenDetails: { textTokens: output, reasoningTokens: 0 },
  totalTokens: input + output
})

describe('usage', () => {
  it('prices cache reads and writes at their own rates', () => {
    // sonnet 4.5: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million
    const e = usageEvent('t', 'claude-sonnet-4-5-20250929', sdkUsage(10_000, 8_000, 1_000, 500))
    expect(e).toMatchObject({ inputTokens: 10_000, cachedInputTokens: 8_000, cacheWriteTokens: 1_000, outputTokens: 500 })
    expect(e.costUsd).toBeCloseTo((1_000 * 3 + 8_000 * 0.3 + 1_000 * 3.75 + 500 * 15) / 1e6, 12)
    expect(formatUsage(e)).toBe('10.0k in (8.0k cached) · 500 out · $0.0167')
  })

  it('matches the longest id prefix and knows no price for other models', () => {
    expect(priceOf('gpt-5-mini-2025-08-07')?.input).toBe(0.25)
    expect(priceOf('gpt-5')?.input).toBe(1.25)
    expect(priceOf('gpt-50')).toBeUndefined()
    expect(priceOf('qwen2.5-coder:7b')).toBeUndefined()
    expect(usageEvent('t', 'qwen2.5-coder:7b', sdkUsage(5, 0, 0, 1)).costUsd).toBeUndefined()
  })

  it('sums a turn back to its turn_started, and has no totals without requests', () => {
    const u = (turnId: string, n: number): SessionEvent => usageEvent(turnId, 'gpt-5', sdkUsage(n, 0, 0, n))
    const history: SessionEvent[] = [
      { type: 'turn_started', turnId: 'a', mode: 'agent' }, u('a', 100),
      { type: 'turn_started', turnId: 'b', mode: 'agent' }, u('b', 10), u('b', 20)
    ]
    expect(turnUsage(history, 'b')).toMatchObject({ requests: 2, inputTokens: 30, outputTokens: 30 })
    expect(turnUsage([{ type: 'turn_started', turnId: 'c', mode: 'agent' }], 'c')).toBeUndefined()
  })

  it('replaces invalid counts (negative, NaN, infinite, fractional, absurd) by the estimate and says so; missing counts stay 0', () => {
    const estimate = () => ({ inputTokens: 1234, outputTokens: 56 })
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, 2.5, MAX_REQUEST_TOKENS + 1]) {
      const e = usageEvent('t', 'gpt-5', sdkUsage(bad, 0, 0, bad), estimate)
      expect(e).toMatchObject({ inputTokens: 1234, outputTokens: 56, cachedInputTokens: 0, estimated: true })
      expect(e.costUsd).toBeGreaterThan(0)
    }
    // only the bad count is replaced; cache counts are never negative nor above the input
    expect(usageEvent('t', 'm', sdkUsage(100, -5, 0, 7), estimate)).toMatchObject({ inputTokens: 100, cachedInputTokens: 0, outputTokens: 7, estimated: true })
    expect(usageEvent('t', 'm', { ...sdkUsage(100, 0, 0, 7), inputTokenDetails: { noCacheTokens: 0, cacheReadTokens: 500, cacheWriteTokens: 0 } }, estimate).cachedInputTokens).toBe(100)
    const missing = usageEvent('t', 'm', undefined, estimate)
    expect(missing).toMatchObject({ inputTokens: 0, outputTokens: 0 })
    expect(missing.estimated).toBeUndefined()
    expect(formatUsage({ ...missing, estimated: true })).toBe('0 in · 0 out · estimated')
  })
})
