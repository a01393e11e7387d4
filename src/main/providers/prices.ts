/**
 * List prices of known models, in US dollars per million tokens, for the cost shown with usage.
 * Source: the vendors' published API price lists (Anthropic "Pricing", OpenAI "API pricing") as of
 * October 2025, standard tier, prompt-cache writes at Anthropic's 5-minute rate. Prices change:
 * update this table when they do. A model not matched here shows tokens only, never a guessed cost.
 */
import type { TokenUsage } from '../../shared/usage'

/** Dollars per million tokens: uncached input, cache read, cache write, output. */
export interface ModelPrice {
  input: number
  cacheRead: number
  cacheWrite: number
  output: number
}

/** Model id prefixes (longest match wins; dated ids such as `claude-sonnet-4-5-20250929` match) → price. */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-5': { input: 5, cacheRead: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-opus-4-1': { input: 15, cacheRead: 1.5, cacheWrite: 18.75, output: 75 },
  'claude-opus-4': { input: 15, cacheRead: 1.5, cacheWrite: 18.75, output: 75 },
  'claude-sonnet-4-5': { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-sonnet-4': { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-3-7-sonnet': { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-haiku-4-5': { input: 1, cacheRead: 0.1, cacheWrite: 1.25, output: 5 },
  'claude-3-5-haiku': { input: 0.8, cacheRead: 0.08, cacheWrite: 1, output: 4 },
  'gpt-5': { input: 1.25, cacheRead: 0.125, cacheWrite: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, cacheRead: 0.025, cacheWrite: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, cacheRead: 0.005, cacheWrite: 0.05, output: 0.4 },
  'gpt-4.1': { input: 2, cacheRead: 0.5, cacheWrite: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cacheRead: 0.1, cacheWrite: 0.4, output: 1.6 },
  'gpt-4o': { input: 2.5, cacheRead: 1.25, cacheWrite: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, cacheRead: 0.075, cacheWrite: 0.15, output: 0.6 }
}

/**
 * The price of `model` (a provider model id): the entry whose key is the longest prefix of it that
 * ends at the id's end or before a `-` (so `gpt-5-mini-2025-08-07` is gpt-5-mini, not gpt-5).
 * @returns undefined for an unknown model (local models, new releases)
 */
export function priceOf(model: string): ModelPrice | undefined {
  let best: string | undefined
  for (const key of Object.keys(MODEL_PRICES)) {
    if (model !== key && !model.startsWith(`${key}-`)) continue
    if (!best || key.length > best.length) best = key
  }
  return best ? MODEL_PRICES[best] : undefined
}

/** Cost in US dollars of one request's tokens at `price` (uncached input = input − cache reads − cache writes). */
export function requestCostUsd(price: ModelPrice, u: TokenUsage): number {
  const write = u.cacheWriteTokens ?? 0
  const uncached = Math.max(0, u.inputTokens - u.cachedInputTokens - write)
  return (uncached * price.input + u.cachedInputTokens * price.cacheRead + write * price.cacheWrite + u.outputTokens * price.output) / 1e6
}
