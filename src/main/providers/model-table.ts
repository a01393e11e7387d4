/**
 * What Cortex knows per model (ADR 0024): the output cap it asks for, how the model thinks
 * (`budget`: Anthropic extended thinking with a token budget; `effort`: OpenAI's reasoning effort,
 * also `reasoning_effort` on an OpenAI-compatible server; `none`) and the thinking level a session
 * starts with. Matched by provider and model id, first row wins; a model not in the table gets its
 * provider's fallback row. Replaces the one fixed 16,384-token output cap.
 */
import type { ProviderName } from '../../shared/contract'
import type { ThinkingLevel } from '../../shared/thinking'

/** How a model is asked to think. */
export type ThinkingStyle = 'budget' | 'effort' | 'none'

/** One model's row. */
export interface ModelLimits {
  /** Most output tokens (answer and thinking together) one request may produce; undefined: the server's default. */
  maxOutputTokens?: number
  thinking: ThinkingStyle
  /** The level a new session starts with. */
  defaultThinking: ThinkingLevel
}

interface Row extends ModelLimits {
  provider: ProviderName | 'any'
  id: RegExp
}

const claude = (id: RegExp, maxOutputTokens: number, defaultThinking: ThinkingLevel = 'medium'): Row =>
  ({ provider: 'anthropic', id, maxOutputTokens, thinking: 'budget', defaultThinking })

/** The table, first match wins (ids as the providers spell them, dated snapshots included). */
const ROWS: readonly Row[] = [
  claude(/claude-opus-4(-[01])?(-20\d{6})?$/, 32_000),
  claude(/claude-(opus|sonnet|haiku)-4|claude-(opus|sonnet|haiku)-[5-9]|claude-[4-9]/, 64_000),
  claude(/claude-3-7-sonnet/, 64_000, 'off'),
  { provider: 'anthropic', id: /claude-3/, maxOutputTokens: 8_192, thinking: 'none', defaultThinking: 'off' },
  // OpenAI reasoning models: gpt-5 and later (not the -chat models), the o-series
  { provider: 'any', id: /(^|\/)(gpt-[5-9](?!.*-chat)|o[1-9])/, maxOutputTokens: 128_000, thinking: 'effort', defaultThinking: 'medium' },
  { provider: 'any', id: /(^|\/)gpt-4\.1/, maxOutputTokens: 32_768, thinking: 'none', defaultThinking: 'off' },
  { provider: 'any', id: /(^|\/)gpt-4o/, maxOutputTokens: 16_384, thinking: 'none', defaultThinking: 'off' },
  // open-weights models that reason (they stream reasoning_content or <think> whatever is asked); off: nothing is sent
  { provider: 'openai-compatible', id: /qwen3|qwq|deepseek-r1|gpt-oss|magistral|think/i, thinking: 'effort', defaultThinking: 'off' }
]

/** Fallback rows per provider: Anthropic's SDK caps an unknown id at 4096 tokens unless told more. */
const FALLBACK: Record<ProviderName, ModelLimits> = {
  anthropic: { maxOutputTokens: 16_384, thinking: 'budget', defaultThinking: 'off' },
  openai: { thinking: 'none', defaultThinking: 'off' },
  'openai-compatible': { thinking: 'none', defaultThinking: 'off' }
}

/**
 * The row of `modelId` on `provider`.
 * @returns the first matching row of the table, else the provider's fallback (never throws)
 */
export function modelLimits(provider: ProviderName, modelId: string): ModelLimits {
  const id = modelId.toLowerCase()
  const row = ROWS.find((r) => (r.provider === 'any' || r.provider === provider) && r.id.test(id))
  if (!row) return FALLBACK[provider]
  const { maxOutputTokens, thinking, defaultThinking } = row
  return { ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}), thinking, defaultThinking }
}

/** The provider name of an AI SDK model's `provider` id (`anthropic.messages` → anthropic, `openai.responses` → openai, `openai-compatible.chat` → openai-compatible). */
export function providerOfModel(sdkProvider: string): ProviderName {
  if (sdkProvider.startsWith('anthropic')) return 'anthropic'
  if (sdkProvider.startsWith('openai-compatible')) return 'openai-compatible'
  return sdkProvider.startsWith('openai') ? 'openai' : 'openai-compatible'
}
