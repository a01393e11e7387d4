/**
 * The thinking part of a model request (ADR 0024): from the session's level and the model's row
 * (model-table.ts) to the AI SDK's provider options and output cap.
 * - Anthropic: extended thinking with a token budget (`thinking: { type: 'enabled', budget_tokens }`;
 *   the SDK turns it into adaptive thinking on models that only think adaptively); the output cap
 *   is the model's, of which the budget is a part.
 * - OpenAI Responses: `reasoning: { effort, summary: 'auto' }`, always `store: false` with
 *   `include: ['reasoning.encrypted_content']`, so the encrypted reasoning items come back in the
 *   stream and are carried to the next step (nothing is kept server-side).
 * - OpenAI-compatible: `reasoning_effort` when the level is not off and the model reasons.
 */
import type { AssistantModelMessage, LanguageModel } from 'ai'
import type { ProviderName } from '../../shared/contract'
import { CortexError } from '../../shared/errors'
import type { ThinkingLevel } from '../../shared/thinking'
import { modelLimits, providerOfModel } from './model-table'

/** Provider options as `streamText` takes them (`providerOptions`: provider → JSON object). */
type ProviderOptions = NonNullable<AssistantModelMessage['providerOptions']>

/** Anthropic thinking budgets per level, in tokens (at most half the model's output cap). */
export const THINKING_BUDGETS = { low: 4_096, medium: 16_384, high: 32_000 } as const


/** What a request adds for thinking: provider options and the output cap (absent: the provider's default). */
export interface ThinkingRequest {
  providerOptions?: ProviderOptions
  maxOutputTokens?: number
}

/**
 * The request options of `level` on `modelId` at `provider`.
 * @param level the session's level; undefined: the model's default from the table
 */
export function thinkingRequest(provider: ProviderName, modelId: string, level: ThinkingLevel | undefined): ThinkingRequest {
  const row = modelLimits(provider, modelId)
  const want = level ?? row.defaultThinking
  const cap = row.maxOutputTokens !== undefined ? { maxOutputTokens: row.maxOutputTokens } : {}
  if (provider === 'anthropic') {
    if (want === 'off' || row.thinking === 'none') return cap
    const limit = row.maxOutputTokens ?? 16_384
    const budget = Math.max(1024, Math.min(THINKING_BUDGETS[want], Math.floor(limit / 2)))
    // the SDK sends max_tokens = maxOutputTokens + budget: the answer keeps what the budget leaves
    return { maxOutputTokens: limit - budget, providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: budget } } } }
  }
  if (provider === 'openai') {
    const openai: ProviderOptions[string] = { store: false }
    if (row.thinking === 'effort') {
      const effort = want !== 'off' ? want : offEffort(modelId)
      if (effort) openai.reasoningEffort = effort
      if (effort !== 'none') openai.reasoningSummary = 'auto'
      openai.include = ['reasoning.encrypted_content']
    }
    return { ...cap, providerOptions: { openai } }
  }
  if (want !== 'off' && row.thinking === 'effort') return { ...cap, providerOptions: { openaiCompatible: { reasoningEffort: want } } }
  return cap
}

/** The lowest effort an OpenAI reasoning model accepts for "off": `minimal` on gpt-5, `none` on gpt-5.1 and later, nothing on the o-series (they always reason). */
function offEffort(modelId: string): string | undefined {
  const id = modelId.toLowerCase()
  if (/gpt-5(-mini|-nano|-codex)?($|-20)/.test(id)) return 'minimal'
  return /gpt-([5-9]\.|[6-9])/.test(id) ? 'none' : undefined
}

/**
 * Check that `level` can be asked of `modelId` at `provider`.
 * @throws CortexError('invalid_input') naming the model when it cannot think and `level` is not off
 */
export function checkThinkingLevel(provider: ProviderName, modelId: string, level: ThinkingLevel): void {
  if (level === 'off' || modelLimits(provider, modelId).thinking !== 'none') return
  throw new CortexError('invalid_input', `${provider} model ${modelId} does not support thinking: choose off, or a model that reasons (e.g. claude-sonnet-4-5, gpt-5)`)
}

/**
 * {@link checkThinkingLevel} for an AI SDK model object (its provider id and model id).
 * @throws CortexError('invalid_input') as checkThinkingLevel
 */
export function checkModelThinking(model: LanguageModel, level: ThinkingLevel): void {
  if (typeof model === 'string') return
  checkThinkingLevel(providerOfModel(model.provider), model.modelId, level)
}
