/**
 * Token usage of model requests: the `usage` event of one request (from the AI SDK's step usage,
 * priced by src/main/providers/prices.ts) and the totals of a turn for its `turn_ended` event. A
 * provider's counts are not trusted: a negative, fractional, non-finite or absurd count is replaced
 * by an estimate of the request, and the event says so (`estimated`).
 */
import type { LanguageModel, LanguageModelUsage } from 'ai'
import type { SessionEvent } from '../../shared/events'
import { addUsage, NO_USAGE, type TokenUsage, type TurnUsage } from '../../shared/usage'
import { priceOf, requestCostUsd } from '../providers/prices'

/** Most tokens one request may report for its input or its output (10 M: above every model's window); more is not believed. */
export const MAX_REQUEST_TOKENS = 10_000_000

/** Estimated tokens of a request, used for a count the provider reported invalid: its prompt and its answer. */
export interface UsageEstimate {
  inputTokens: number
  outputTokens: number
}

/** Whether `n` is a count a provider could mean: a whole number from 0 to {@link MAX_REQUEST_TOKENS}. */
export function validCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_REQUEST_TOKENS
}

/**
 * The `usage` event of one request of turn `turnId` on `model`. Missing counts read as 0; a count
 * present but invalid ({@link validCount}: negative, fractional, NaN, infinite or above
 * {@link MAX_REQUEST_TOKENS}) is replaced by `estimate()` (input, output; cache counts become 0, and
 * cache reads never exceed the input) and the event carries `estimated: true`. The cost is absent
 * for a model without a known price.
 * @param estimate the request's estimated tokens, asked only when a count is invalid (default: 0 and 0)
 */
export function usageEvent(turnId: string, model: string, u: LanguageModelUsage | undefined, estimate?: () => UsageEstimate): Extract<SessionEvent, { type: 'usage' }> {
  let estimated = false
  let guess: UsageEstimate | undefined
  const count = (raw: unknown, fallback: (e: UsageEstimate) => number): number => {
    if (raw === undefined || raw === null) return 0
    if (validCount(raw)) return raw
    estimated = true
    guess ??= estimate?.() ?? { inputTokens: 0, outputTokens: 0 }
    return Math.min(MAX_REQUEST_TOKENS, Math.max(0, Math.round(fallback(guess) || 0)))
  }
  const inputTokens = count(u?.inputTokens, (e) => e.inputTokens)
  const outputTokens = count(u?.outputTokens, (e) => e.outputTokens)
  const cached = Math.min(inputTokens, count(u?.inputTokenDetails?.cacheReadTokens, () => 0))
  const cacheWrite = count(u?.inputTokenDetails?.cacheWriteTokens, () => 0)
  const reasoning = Math.min(outputTokens, count(u?.outputTokenDetails?.reasoningTokens, () => 0))
  const tokens: TokenUsage = {
    inputTokens,
    cachedInputTokens: cached,
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
    outputTokens,
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
    ...(estimated ? { estimated: true } : {})
  }
  const price = priceOf(model)
  return { type: 'usage', turnId, model, ...tokens, ...(price ? { costUsd: requestCostUsd(price, tokens) } : {}) }
}

/**
 * The totals of turn `turnId`: the sum of its `usage` events, found by reading `history` backwards
 * to the turn's `turn_started`. Undefined when the turn made no model request that reported usage.
 */
export function turnUsage(history: readonly SessionEvent[], turnId: string): TurnUsage | undefined {
  let total: TurnUsage = NO_USAGE
  for (let i = history.length - 1; i >= 0; i--) {
    const e = history[i]!
    if (e.type === 'turn_started' && e.turnId === turnId) break
    if (e.type === 'usage' && e.turnId === turnId) total = addUsage(total, e)
  }
  return total.requests > 0 ? total : undefined
}

/** The model id of `model` (a provider model object's `modelId`, or the id string itself). */
export function modelIdOf(model: LanguageModel): string {
  return typeof model === 'string' ? model : model.modelId
}
