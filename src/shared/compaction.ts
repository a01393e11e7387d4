/**
 * Compaction (ADR 0016): the `compact` operation, the events a compaction leaves in the session log
 * (`compaction_started`, `compaction_finished`, `compaction_failed`), the `context_usage` event the
 * app and the CLI show, and their one-line labels. Compaction never rewrites the log: the model's
 * history is rebuilt from the latest `compaction_finished` (src/main/harness/history.ts). Spread into
 * the operation and event unions of ./events.ts.
 */
import { z } from 'zod'

/** What started a compaction: the threshold before a request, the user (`compact`), or a "prompt too long" answer. */
export const CompactionTriggerSchema = z.enum(['auto', 'manual', 'overflow'])
/** See {@link CompactionTriggerSchema}. */
export type CompactionTrigger = z.infer<typeof CompactionTriggerSchema>

/** A file of the keep-set: its repository path and content re-read from the guest at compaction time (`truncated` when cut at the size bound). */
export const KeptFileSchema = z.object({ path: z.string(), content: z.string(), truncated: z.boolean().optional() })

/**
 * The keep-set: what a compaction keeps verbatim or rebuilt fresh, never left to the summary.
 * `userMessages` oldest first (the newest ones that fit the budget; the latest always whole);
 * `todos` and `plan` (the accepted plan or spec, as text) from session state; `files` re-read from
 * the guest; `diff` the `git diff` of files changed this session (bounded); `goal` when one is set.
 */
export const KeepSetSchema = z.object({
  userMessages: z.array(z.string()),
  goal: z.string().optional(),
  /** The todos as todo_write left them (the shape of events.ts' TodoSchema, not imported: events.ts imports this module). */
  todos: z.array(z.object({ content: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) })),
  plan: z.string().optional(),
  files: z.array(KeptFileSchema),
  diff: z.string().optional()
})
/** See {@link KeepSetSchema}. */
export type KeepSet = z.infer<typeof KeepSetSchema>

/**
 * How a compaction shrank the history. `mask`: old tool results replaced by one-line stubs (no
 * summary); `summary`: everything before the verbatim tail replaced by the summary and the keep-set.
 */
export const CompactionMethodSchema = z.enum(['mask', 'summary'])

/** `compact`: compact the history now (no turn may run); `focus` tells the summary what to keep in detail. */
export const COMPACTION_OPERATIONS = [z.object({ type: z.literal('compact'), focus: z.string().trim().min(1).max(2000).optional() })] as const

/**
 * Compaction events. `compaction_finished`: tokens before/after (estimates), the method, the summary
 * and keep-set the history now starts from, and `tailEvents` — how many history events (user and
 * assistant messages, tool results) just before it stay verbatim; `compaction_failed`: why (the
 * history is kept whole). `context_usage`: after each model request, the context size (tokens) of
 * the window (tokens) and the auto-compaction threshold (a fraction).
 */
export const COMPACTION_EVENTS = [
  z.object({ type: z.literal('compaction_started'), turnId: z.string().optional(), trigger: CompactionTriggerSchema, tokensBefore: z.number().int().nonnegative() }),
  z.object({
    type: z.literal('compaction_finished'),
    turnId: z.string().optional(),
    trigger: CompactionTriggerSchema,
    method: CompactionMethodSchema,
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    summary: z.string(),
    keep: KeepSetSchema,
    tailEvents: z.number().int().nonnegative()
  }),
  z.object({ type: z.literal('compaction_failed'), turnId: z.string().optional(), trigger: CompactionTriggerSchema, reason: z.string() }),
  z.object({
    type: z.literal('context_usage'),
    turnId: z.string().optional(),
    tokens: z.number().int().nonnegative(),
    window: z.number().int().positive(),
    threshold: z.number().positive().max(1)
  })
] as const

/** `12.3k` for 12 345 tokens, `143k` from 100k, `1.2M` from a million; plain below 1000. */
export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`
  if (n >= 100_000) return `${Math.round(n / 1000)}k`
  if (n >= 1000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`
  return String(n)
}

/** "compacted 143k → 21k tokens" for a finished compaction. */
export function compactionLabel(e: { tokensBefore: number; tokensAfter: number }): string {
  return `compacted ${formatTokens(e.tokensBefore)} → ${formatTokens(e.tokensAfter)} tokens`
}

/** "context 62% of 200k" for a context size (tokens) of a window (tokens). */
export function contextLabel(e: { tokens: number; window: number }): string {
  return `context ${Math.round((e.tokens / e.window) * 100)}% of ${formatTokens(e.window)}`
}
