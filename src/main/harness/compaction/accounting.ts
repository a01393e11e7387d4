/**
 * Token accounting for compaction: the context size is the input tokens the provider reported for
 * the LATEST request (cached tokens are part of `inputTokens` and so counted once) plus its answer
 * plus an estimate of what was added since — never a sum across requests. A compaction resets the
 * base to its own `tokensAfter`. Context windows come from a table (Anthropic, OpenAI, common local
 * models), overridable with `--context-window` / CORTEX_CONTEXT_WINDOW.
 */
import { CortexError } from '../../../shared/errors'
import type { SessionEvent } from '../../../shared/events'
import type { ImageRef } from '../../../shared/images'

/** Env var: the model's context window in tokens, overriding the table (`--context-window`). */
export const CONTEXT_WINDOW_ENV = 'CORTEX_CONTEXT_WINDOW'
/** Env var: the auto-compaction threshold, a fraction of the window above 0 and at most 1 (default {@link DEFAULT_THRESHOLD}). */
export const COMPACT_THRESHOLD_ENV = 'CORTEX_COMPACT_THRESHOLD'
/** Default auto-compaction threshold: 80% of the window. */
export const DEFAULT_THRESHOLD = 0.8
/** Window assumed for a model the table does not know (tokens): small enough to compact before most servers refuse. */
export const DEFAULT_CONTEXT_WINDOW = 128_000
/** Characters per token of the estimate (English and code average about 4; a deliberate overestimate would compact too early). */
export const CHARS_PER_TOKEN = 4

/** Known context windows (tokens), first match wins; patterns match the model id case-insensitively. */
const WINDOWS: Array<[RegExp, number]> = [
  [/claude-(opus|sonnet)-4-5.*\[1m\]/i, 1_000_000],
  [/claude/i, 200_000],
  [/^gpt-4\.1|gpt-4\.1-/i, 1_047_576],
  [/^gpt-5/i, 400_000],
  [/^o[134](-|$)/i, 200_000],
  [/^gpt-4o|^gpt-4-turbo/i, 128_000],
  [/^gpt-4(-|$)/i, 8_192],
  [/^gpt-3\.5/i, 16_385],
  [/qwen3-coder/i, 262_144],
  [/qwen2\.5-coder|qwen3|qwen2\.5/i, 32_768],
  [/llama-?3\.[123]|llama3\.[123]/i, 131_072],
  [/llama-?3|llama3/i, 8_192],
  [/deepseek-(coder-v2|v3|r1)|deepseek-chat|deepseek-reasoner/i, 128_000],
  [/codestral/i, 256_000],
  [/devstral|mistral-(small|medium|large)/i, 128_000],
  [/gemma-?3/i, 131_072],
  [/phi-?4/i, 16_384],
  [/gpt-oss/i, 131_072]
]

/**
 * The context window (tokens) of `modelId`: `override` when set (from {@link CONTEXT_WINDOW_ENV}),
 * else the table, else {@link DEFAULT_CONTEXT_WINDOW}.
 */
export function contextWindowOf(modelId: string, override?: number): number {
  if (override !== undefined) return override
  for (const [re, n] of WINDOWS) if (re.test(modelId)) return n
  return DEFAULT_CONTEXT_WINDOW
}

/**
 * A whole-number token count from a setting (`--context-window`, CORTEX_CONTEXT_WINDOW): 1000 to 10M.
 * @returns undefined for unset/empty
 * @throws CortexError('invalid_input') for anything else, naming the setting
 */
export function parseContextWindow(raw: string | number | undefined, name = CONTEXT_WINDOW_ENV): number | undefined {
  if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1000 || n > 10_000_000) throw new CortexError('invalid_input', `${name}="${raw}" must be a whole number of tokens from 1000 to 10000000`)
  return n
}

/**
 * The auto-compaction threshold from a setting (CORTEX_COMPACT_THRESHOLD): a fraction in (0, 1], or a
 * percentage above 1 and at most 100. Default {@link DEFAULT_THRESHOLD}.
 * @throws CortexError('invalid_input') for anything else
 */
export function parseThreshold(raw: string | number | undefined, name = COMPACT_THRESHOLD_ENV): number {
  if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) return DEFAULT_THRESHOLD
  const n = Number(raw)
  const f = n > 1 ? n / 100 : n
  if (!Number.isFinite(f) || f <= 0.05 || f > 1) throw new CortexError('invalid_input', `${name}="${raw}" must be a fraction of the window (0.05-1) or a percentage (5-100)`)
  return f
}

/** Estimated tokens of `text` ({@link CHARS_PER_TOKEN} characters a token, rounded up). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}

/** Estimated tokens of an image: width × height / 750 (Anthropic's rule), at most 1,600 (providers scale larger ones down). */
export function imageTokens(ref: Pick<ImageRef, 'width' | 'height'>): number {
  return Math.min(1600, Math.ceil((ref.width * ref.height) / 750))
}

/** Estimated tokens an event adds to the model history (0 for events the history ignores). */
export function eventTokens(e: SessionEvent): number {
  switch (e.type) {
    case 'user_message':
      return estimateTokens(e.text) + 4 + (e.images ?? []).reduce((n, r) => n + imageTokens(r), 0)
    case 'assistant_message':
      // reasoning blocks go back with their message (signatures and encrypted content included)
      return estimateTokens(e.text) + e.toolCalls.reduce((n, c) => n + estimateTokens(c.name) + estimateTokens(JSON.stringify(c.args ?? null)) + 8, 4) +
        (e.reasoning ? estimateTokens(JSON.stringify(e.reasoning)) : 0)
    case 'tool_call_finished':
      return estimateTokens(e.result) + 8 + (e.image ? imageTokens(e.image) : 0)
    default:
      return 0
  }
}

/** The context size and where it came from. */
export interface ContextSize {
  /** Estimated tokens the next request carries. */
  tokens: number
  /** `reported`: a provider's count plus an estimate since; `compaction`: a compaction's tokensAfter plus since; `estimate`: no count yet. */
  basis: 'reported' | 'compaction' | 'estimate'
}

/**
 * The context size of the next request from the history: the latest `usage` (inputTokens, cached
 * included; its answer follows it as an `assistant_message` and is estimated) or the latest `compaction_finished`
 * (its tokensAfter), whichever is later, plus {@link eventTokens} of every event after it. With
 * neither, `fixedTokens` (system prompt and tools) plus the estimate of the whole history.
 * @param fixedTokens estimated tokens of the system prompt and tool declarations
 */
export function contextSize(events: readonly SessionEvent[], fixedTokens: number): ContextSize {
  let added = 0
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    // the answer of that request is emitted after its usage event, so it is in `added` already
    if (e.type === 'usage' && e.inputTokens > 0 && e.purpose !== 'summary') return { tokens: e.inputTokens + added, basis: 'reported' }
    if (e.type === 'compaction_finished') return { tokens: e.tokensAfter + added, basis: 'compaction' }
    added += eventTokens(e)
  }
  return { tokens: fixedTokens + added, basis: 'estimate' }
}
