/**
 * Token usage and cost of model requests: the `usage` event (one per model request) and the totals
 * a `turn_ended` event carries. Costs are US dollars, computed on the host from a small price table
 * (src/main/providers/prices.ts); a model not in it has no cost (`costUsd` absent), never a guess.
 */
import { z } from 'zod'
import { NESTED_SHAPE } from './subagents'

/**
 * Tokens of one request or a sum of them. `inputTokens` counts every prompt token, cached ones
 * included; `cachedInputTokens` those read from the provider's prompt cache, `cacheWriteTokens`
 * those written to it (Anthropic); `outputTokens` the answer, reasoning included.
 */
export const TokenUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  cachedInputTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative(),
  /** Of `outputTokens`, those the model spent reasoning (thinking), when the provider reports them. */
  reasoningTokens: z.number().int().nonnegative().optional(),
  /** US dollars; absent when the model's price is unknown. */
  costUsd: z.number().nonnegative().optional(),
  /** The provider reported an invalid count (negative, NaN, absurd): the counts are Cortex's estimate (src/main/harness/usage.ts). */
  estimated: z.boolean().optional()
})
/** See {@link TokenUsageSchema}. */
export type TokenUsage = z.infer<typeof TokenUsageSchema>

/** Totals of a turn, carried by `turn_ended`: the sum of its requests' usage and how many requests there were. */
export const TurnUsageSchema = TokenUsageSchema.extend({ requests: z.number().int().nonnegative() })
/** See {@link TurnUsageSchema}. */
export type TurnUsage = z.infer<typeof TurnUsageSchema>

/**
 * `usage`: one model request of turn `turnId` finished (or was cut off) using these tokens, on `model`.
 * `purpose: 'summary'` marks a compaction's summariser call (its prompt is a transcript, not the
 * context, so the context accounting skips it; the turn's totals and budgets count it).
 */
export const USAGE_EVENTS = [
  TokenUsageSchema.extend({ type: z.literal('usage'), turnId: z.string(), model: z.string(), purpose: z.enum(['summary']).optional(), ...NESTED_SHAPE })
] as const

/** Add `b` to `a` (cost stays absent once any part has no price; estimated once any part is). */
export function addUsage(a: TurnUsage, b: TokenUsage): TurnUsage {
  const cacheWrite = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0)
  const reasoning = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0)
  return {
    requests: a.requests + 1,
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
    outputTokens: a.outputTokens + b.outputTokens,
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
    ...(a.costUsd !== undefined && b.costUsd !== undefined ? { costUsd: a.costUsd + b.costUsd } : {}),
    ...(a.estimated || b.estimated ? { estimated: true } : {})
  }
}

/** The totals of no request yet (cost 0, so a priced request keeps it). */
export const NO_USAGE: TurnUsage = { requests: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, costUsd: 0 }

/**
 * One line for people: `12.3k in (10.1k cached) · 845 out (600 reasoning) · $0.0123`; tokens over 1000 in k with
 * one decimal, cost with 4 decimals below $1 and 2 above; no cost part when the price is unknown;
 * ` · estimated` when a provider's count was replaced by an estimate.
 */
export function formatUsage(u: TokenUsage): string {
  const k = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n))
  const cached = u.cachedInputTokens > 0 ? ` (${k(u.cachedInputTokens)} cached)` : ''
  const reasoning = u.reasoningTokens ? ` (${k(u.reasoningTokens)} reasoning)` : ''
  const cost = u.costUsd === undefined ? '' : ` · $${u.costUsd < 1 ? u.costUsd.toFixed(4) : u.costUsd.toFixed(2)}`
  return `${k(u.inputTokens)} in${cached} · ${k(u.outputTokens)} out${reasoning}${cost}${u.estimated ? ' · estimated' : ''}`
}
