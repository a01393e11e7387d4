/**
 * Token usage of model requests: the `usage` event of one request (from the AI SDK's step usage,
 * priced by src/main/providers/prices.ts) and the totals of a turn for its `turn_ended` event.
 */
import type { LanguageModel, LanguageModelUsage } from 'ai'
import type { SessionEvent } from '../../shared/events'
import { addUsage, NO_USAGE, type TokenUsage, type TurnUsage } from '../../shared/usage'
import { priceOf, requestCostUsd } from '../providers/prices'

/**
 * The `usage` event of one request of turn `turnId` on `model`. Missing counts read as 0; the cost
 * is absent for a model without a known price.
 */
export function usageEvent(turnId: string, model: string, u: LanguageModelUsage | undefined): Extract<SessionEvent, { type: 'usage' }> {
  const cached = u?.inputTokenDetails?.cacheReadTokens ?? 0
  const cacheWrite = u?.inputTokenDetails?.cacheWriteTokens ?? 0
  const tokens: TokenUsage = {
    inputTokens: u?.inputTokens ?? 0,
    cachedInputTokens: cached,
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
    outputTokens: u?.outputTokens ?? 0
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
