/**
 * One compaction, cheapest first and failing closed. Masking old tool results (masking.ts) when
 * that alone brings an automatic trigger's context under the target; otherwise a summary: the
 * keep-set is built (files and diff re-read in the guest), the fixed part is checked against the
 * budget (`context_overflow` when it alone exceeds it — no summariser call then), the summariser
 * runs, the result is verified mechanically (verify.ts) and, failing, tried once more with stricter
 * budgets. Failure of either kind records `compaction_failed` and throws `compaction_failed`; the
 * log is only appended to. Stop ends it, records why and keeps the history.
 */
import type { LanguageModel } from 'ai'
import { CortexError } from '../../../shared/errors'
import type { CompactionTrigger, KeepSet } from '../../../shared/compaction'
import type { SessionEvent, Todo } from '../../../shared/events'
import type { Guest } from '../../guest/guest'
import { contextSize, estimateTokens } from './accounting'
import { renderCompacted } from './context-text'
import { DEFAULT_KEEP_BUDGET, buildKeepSet, stricter, type KeepBudget } from './keep-set'
import { planMask } from './masking'
import { compactedView, isHistoryEvent } from './rebuild'
import { summarise, transcriptOf } from './summarise'
import { modelIdOf, usageEvent } from '../usage'
import { verifyCompaction } from './verify'

/** Compaction settings of a session. */
export interface CompactionSettings {
  /** The model's context window (tokens). */
  window: number
  /** Auto-compaction threshold, a fraction of the window. */
  threshold: number
  /** Model steps kept verbatim after a summary (default {@link DEFAULT_KEEP_STEPS}). */
  keepSteps?: number
  /** Model for summaries (default the session's). */
  summaryModel?: LanguageModel
  /** Deadline of one summariser call (ms). */
  summaryTimeoutMs?: number
}

/** Model steps kept verbatim after a summary by default. */
export const DEFAULT_KEEP_STEPS = 2
/** Target after compacting, as a fraction of the budget (room for the next steps). */
const TARGET = 0.6
/** At most this many summariser attempts per trigger. */
export const MAX_SUMMARY_ATTEMPTS = 2

/** What a compaction works with. */
export interface CompactionContext {
  turnId?: string
  model: LanguageModel
  signal: AbortSignal
  /** The visible history (rewinds applied). */
  events(): readonly SessionEvent[]
  emit(event: SessionEvent): void
  todos(): readonly Todo[]
  goal?(): string | undefined
  /** The guest (attached if needed); absent or failing: the keep-set has no files and no diff. */
  getGuest?(): Promise<Guest>
  settings: CompactionSettings
  /** Estimated tokens of the system prompt and tools. */
  fixedTokens: number
  /** Map a summariser failure to a message. */
  classifyError(err: unknown): CortexError
  /** Called before each summariser call (tests and logs count them). */
  onSummaryCall?(): void
  /** Awaited before a compaction starts (PreCompact hooks); never rejects. */
  beforeCompact?(trigger: CompactionTrigger, focus?: string): Promise<void>
}

/** The budget (tokens) a context must stay below: threshold × window. */
export function budgetOf(s: CompactionSettings): number {
  return Math.floor(s.window * s.threshold)
}

/** The user-facing message of a failed compaction. */
export function failureMessage(reason: string): string {
  return `compaction failed: ${reason} — history kept; retry, switch model, or start a new session from a summary`
}

/** History events in `events` (used for the verbatim tail's bound). */
function historyCount(events: readonly SessionEvent[]): number {
  let n = 0
  for (const e of events) if (isHistoryEvent(e)) n++
  return n
}

/** The verbatim tail: the last `steps` assistant steps (fewer while it exceeds `maxTokens`), as a count of history events. */
function tailOf(events: readonly SessionEvent[], steps: number, maxTokens: number): number {
  for (let s = steps; s > 0; s--) {
    let count = 0
    let seen = 0
    let chars = 0
    for (let i = events.length - 1; i >= 0 && seen < s; i--) {
      const e = events[i]!
      if (!isHistoryEvent(e)) continue
      count++
      chars += JSON.stringify(e).length
      if (e.type === 'assistant_message') seen++
    }
    if (seen === 0) return 0
    if (chars / 4 <= maxTokens) return count
  }
  return 0
}

/**
 * Compact the history now.
 * @returns `compacted`, or `stopped` when Stop came first (a `compaction_failed` records it)
 * @throws CortexError `context_overflow` when the fixed part alone exceeds the budget; `compaction_failed`
 *   when the summariser errs or times out, or its result fails verification twice
 */
export async function compactHistory(ctx: CompactionContext, trigger: CompactionTrigger, focus?: string): Promise<'compacted' | 'stopped'> {
  await ctx.beforeCompact?.(trigger, focus)
  const { turnId, settings } = ctx
  const budget = budgetOf(settings)
  const events = ctx.events()
  const before = contextSize(events, ctx.fixedTokens).tokens
  const view = compactedView(events)
  const replayCount = historyCount(view.replay)
  if (replayCount === 0) throw new CortexError('invalid_input', 'nothing to compact yet: the session has no messages since the last compaction')
  ctx.emit({ type: 'compaction_started', ...(turnId ? { turnId } : {}), trigger, tokensBefore: before })
  const fail = (reason: string, code: 'compaction_failed' | 'context_overflow' = 'compaction_failed'): never => {
    ctx.emit({ type: 'compaction_failed', ...(turnId ? { turnId } : {}), trigger, reason })
    throw new CortexError(code, code === 'compaction_failed' ? failureMessage(reason) : reason)
  }
  const stopped = (): 'stopped' => {
    ctx.emit({ type: 'compaction_failed', ...(turnId ? { turnId } : {}), trigger, reason: 'stopped by the user; history kept' })
    return 'stopped'
  }
  // cheapest first: masking alone, when it brings an automatic trigger under the target
  if (trigger === 'auto') {
    const mask = planMask(view.replay, view.masked)
    if (mask.savedTokens > 0 && before - mask.savedTokens <= budget * TARGET) {
      const candidate = finished(turnId, trigger, 'mask', before, '', emptyKeep(), Math.min(mask.tailEvents, replayCount))
      const v = verifyCompaction(events, candidate, ctx.fixedTokens, budget)
      if (v.ok) {
        ctx.emit({ ...candidate, tokensAfter: v.tokensAfter })
        return 'compacted'
      }
    }
  }

  let keepBudget: KeepBudget = DEFAULT_KEEP_BUDGET
  let guest: Guest | undefined
  try {
    guest = ctx.getGuest ? await ctx.getGuest() : undefined
  } catch {
    if (ctx.signal.aborted) return stopped()
    guest = undefined // no guest: the keep-set has no files and no diff (the summary still covers them)
  }
  const steps = settings.keepSteps ?? DEFAULT_KEEP_STEPS
  let lastProblems: string[] = []
  for (let attempt = 1; attempt <= MAX_SUMMARY_ATTEMPTS; attempt++) {
    if (ctx.signal.aborted) return stopped()
    let keep: KeepSet
    try {
      keep = await buildKeepSet({ events, todos: ctx.todos(), goal: ctx.goal?.(), guest, signal: ctx.signal }, keepBudget)
    } catch (err) {
      if (ctx.signal.aborted) return stopped()
      return fail(`the keep-set could not be built (${err instanceof Error ? err.message : String(err)})`)
    }
    // the fixed part: system prompt, tools, and the keep-set's mandatory items (latest user message, goal, todos, plan)
    const mandatory: KeepSet = { userMessages: keep.userMessages.slice(-1), todos: keep.todos, files: [], ...(keep.goal ? { goal: keep.goal } : {}), ...(keep.plan ? { plan: keep.plan } : {}) }
    const fixed = ctx.fixedTokens + estimateTokens(renderCompacted('', mandatory))
    if (fixed >= budget) {
      return fail(
        `the fixed context exceeds the budget: the system prompt, tools and keep-set (latest user message, goal, todos, plan) take about ${fixed} tokens, ` +
          `the budget is ${budget} (${Math.round(settings.threshold * 100)}% of a ${settings.window}-token window); shorten the message or todos, or raise --context-window`,
        'context_overflow'
      )
    }
    const room = budget * TARGET - estimateTokens(renderCompacted('', keep)) - ctx.fixedTokens
    const maxSummary = Math.max(256, Math.min(4000, Math.floor((attempt === 1 ? 0.5 : 0.25) * Math.max(0, room))))
    let tail = Math.min(tailOf(view.replay, attempt === 1 ? steps : Math.floor(steps / 2), Math.max(0, room - maxSummary) / 2), replayCount)
    let summarised: readonly SessionEvent[] = view.replay.slice(0, tailIndex(view.replay, tail))
    if (!summarised.some(isHistoryEvent) && view.lead === undefined) {
      // the verbatim steps are the whole history: keeping them would shrink nothing, so all of it is summarised
      tail = 0
      summarised = view.replay
    }
    let summary: string
    try {
      summary = await summarise({
        model: settings.summaryModel ?? ctx.model,
        signal: ctx.signal,
        transcript: transcriptOf(summarised, view.lead),
        maxTokens: maxSummary,
        ...(focus ? { focus } : {}),
        inputBudget: Math.max(2000, Math.floor(settings.window * 0.5)),
        ...(settings.summaryTimeoutMs ? { timeoutMs: settings.summaryTimeoutMs } : {}),
        onCall: ctx.onSummaryCall,
        // recorded for the turn's totals and budgets, marked so the context accounting skips it
        onUsage: (u) => ctx.emit({ ...usageEvent(turnId ?? '', modelIdOf(settings.summaryModel ?? ctx.model), u), purpose: 'summary' })
      })
    } catch (err) {
      if (ctx.signal.aborted) return stopped()
      return fail(`the summariser failed (${oneLine(ctx.classifyError(err).message)})`)
    }
    const candidate = finished(turnId, trigger, 'summary', before, summary, keep, tail)
    // the provider's count already said "too long" for an overflow, so only there may our estimate of `before` be low
    const v = verifyCompaction(events, candidate, ctx.fixedTokens, budget, trigger === 'overflow' ? undefined : before)
    if (v.ok) {
      ctx.emit({ ...candidate, tokensAfter: v.tokensAfter })
      return 'compacted'
    }
    lastProblems = v.problems
    keepBudget = stricter(keepBudget)
  }
  return fail(`the summary failed verification twice (${lastProblems.join('; ')})`)
}

/** Index in `events` where the last `tail` history events start. */
function tailIndex(events: readonly SessionEvent[], tail: number): number {
  let count = 0
  for (let i = events.length - 1; i >= 0; i--) {
    if (!isHistoryEvent(events[i]!)) continue
    if (count === tail) return i + 1
    count++
  }
  return count === tail ? 0 : events.length
}

function finished(
  turnId: string | undefined, trigger: CompactionTrigger, method: 'mask' | 'summary', before: number, summary: string, keep: KeepSet, tailEvents: number
): Extract<SessionEvent, { type: 'compaction_finished' }> {
  return { type: 'compaction_finished', ...(turnId ? { turnId } : {}), trigger, method, tokensBefore: before, tokensAfter: 0, summary, keep, tailEvents }
}

function emptyKeep(): KeepSet {
  return { userMessages: [], todos: [], files: [] }
}

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').slice(0, 300)
