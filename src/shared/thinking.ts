/**
 * Thinking and reasoning (ADR 0024): the session's thinking level, the operation that sets it, and
 * the events that carry the model's reasoning. Adapters (Electron, web, CLI, TUI, ACP) render
 * `reasoning_delta` as it streams and `reasoning_done` as one collapsed row with its duration; the
 * signed or encrypted blocks a provider needs back ride on `assistant_message.reasoning`.
 */
import { z } from 'zod'
import { NESTED_SHAPE } from './subagents'
import { THINKING_LEVELS } from './enum-values'

/** How much the model thinks before answering: `off` asks for none; `low`/`medium`/`high` map to a budget or an effort per provider. */
export const ThinkingLevelSchema = z.enum(THINKING_LEVELS)
/** See {@link ThinkingLevelSchema}. */
export type ThinkingLevel = z.infer<typeof ThinkingLevelSchema>

/**
 * One reasoning block of an assistant message, as the provider must get it back on the next
 * request: `text` (Anthropic's thinking, OpenAI's summary; empty for a redacted block) and the
 * provider's metadata, kept verbatim (Anthropic `{ anthropic: { signature } }` or
 * `{ anthropic: { redactedData } }`; OpenAI `{ openai: { itemId, reasoningEncryptedContent } }`).
 * A block without metadata (an OpenAI-compatible server's `reasoning_content`, a `<think>` block) is
 * shown but never sent back.
 */
export const ReasoningBlockSchema = z.object({
  text: z.string(),
  providerMetadata: z.record(z.string(), z.record(z.string(), z.unknown())).optional()
})
/** See {@link ReasoningBlockSchema}. */
export type ReasoningBlock = z.infer<typeof ReasoningBlockSchema>

/** `set_thinking`: the thinking level of this session from its next turn on (a running turn keeps its level: Anthropic refuses thinking switched on inside a tool loop); kept across resume. */
export const THINKING_OPERATIONS = [z.object({ type: z.literal('set_thinking'), level: ThinkingLevelSchema })] as const

/** Event types of reasoning that stream and are not persisted. */
export const REASONING_EPHEMERAL_TYPES = ['reasoning_delta'] as const

/**
 * The thinking events:
 * - `thinking_changed` (persisted): the session's level is now `level` (set_thinking, or `--thinking`).
 * - `reasoning_delta` (ephemeral): a piece of the model's reasoning text as it streams (`text` may
 *   be empty for a redacted or encrypted block, which still shows that the model is thinking).
 * - `reasoning_done` (persisted): one model step's reasoning ended: all its `text` (joined blocks),
 *   `durationMs` from its first reasoning part to its last (ms), `redacted` when a block had no
 *   readable text (Anthropic redacted_thinking, OpenAI encrypted reasoning without a summary).
 *   Front ends show it as one collapsed row: "Thought for 3.2 s".
 */
export const THINKING_EVENTS = [
  z.object({ type: z.literal('thinking_changed'), level: ThinkingLevelSchema }),
  z.object({ type: z.literal('reasoning_delta'), turnId: z.string(), text: z.string(), ...NESTED_SHAPE }),
  z.object({
    type: z.literal('reasoning_done'),
    turnId: z.string(),
    text: z.string(),
    durationMs: z.number().nonnegative(),
    redacted: z.boolean().optional(),
    ...NESTED_SHAPE
  })
] as const

/** The row label of a `reasoning_done`: `Thought for 3.2 s` (under 1 s: `Thought for 0.4 s`; a minute and more: `Thought for 1 min 5 s`). */
export function thoughtLabel(durationMs: number): string {
  const s = Math.max(0, durationMs) / 1000
  if (s < 60) return `Thought for ${s.toFixed(1)} s`
  return `Thought for ${Math.floor(s / 60)} min ${Math.round(s % 60)} s`
}
