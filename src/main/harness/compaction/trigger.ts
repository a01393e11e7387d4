/**
 * When compaction runs, around one model request of the turn loop: automatically before the request
 * when the context would exceed the threshold; as recovery when the provider answers "prompt too
 * long" (compact, then retry that request ONCE — a second refusal ends the turn with
 * `context_overflow`, never a loop); and after the request a `context_usage` event for the app and
 * the CLI ("context 62% of 200k").
 */
import { APICallError } from 'ai'
import { CortexError } from '../../../shared/errors'
import type { SessionEvent } from '../../../shared/events'
import { contextSize, estimateTokens } from './accounting'
import { budgetOf, compactHistory, type CompactionContext } from './compact'

/** Messages of providers refusing a prompt over the context window (Anthropic, OpenAI, llama.cpp, vLLM, Ollama). */
const TOO_LONG = /prompt is too long|prompt too long|context[_ ]length|maximum context|context window|too many tokens|input is too long|exceeds the (max|maximum)|request too large|reduce the length/i

/**
 * Whether `err` (or its causes) is a provider refusing the prompt for its size: an HTTP 400/413/422
 * answer, or a typed error, whose message says so.
 */
export function isPromptTooLong(err: unknown): boolean {
  const seen = new Set<unknown>()
  let cur: unknown = err
  while (cur instanceof Error && !seen.has(cur) && seen.size < 10) {
    seen.add(cur)
    const status = APICallError.isInstance(cur) ? cur.statusCode : undefined
    const body = APICallError.isInstance(cur) ? (cur.responseBody ?? '') : ''
    if ((status === undefined || status === 400 || status === 413 || status === 422) && TOO_LONG.test(`${cur.message} ${body}`)) return true
    const last = (cur as { lastError?: unknown }).lastError
    cur = last instanceof Error ? last : cur.cause
  }
  return false
}

/**
 * The prompt tokens the provider reported for the first request after the latest compaction, or
 * undefined when nothing was compacted or no request was made since.
 */
export function countedAfterCompaction(events: readonly SessionEvent[]): number | undefined {
  let first: number | undefined
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'usage' && e.inputTokens > 0 && e.purpose !== 'summary') first = e.inputTokens
    if (e.type === 'compaction_finished') return first
  }
  return undefined
}

/** Estimated tokens of a system prompt and tool declarations (description and a schema allowance each). */
export function fixedTokensOf(systemPrompt: string, tools: ReadonlyArray<{ name: string; description: string }>): number {
  return estimateTokens(systemPrompt) + tools.reduce((n, t) => n + estimateTokens(t.name) + estimateTokens(t.description) + 150, 0)
}

/** What {@link compactAroundRequest} needs besides the compaction context. */
export interface RequestCompaction extends Omit<CompactionContext, 'fixedTokens'> {
  fixedTokens: number
}

/**
 * Run `request` with compaction around it: before it, compact when the context would exceed the
 * threshold; on a "prompt too long" refusal, compact and retry once; after it, emit `context_usage`.
 * @returns the request's result, or `stopped` when Stop ended a compaction
 * @throws CortexError `context_overflow` when the retried request is refused again; compaction errors (compact.ts); the request's own errors
 */
export async function compactAroundRequest<T>(ctx: RequestCompaction, request: () => Promise<T>): Promise<T | 'stopped'> {
  const budget = budgetOf(ctx.settings)
  if (contextSize(ctx.events(), ctx.fixedTokens).tokens > budget) {
    const counted = countedAfterCompaction(ctx.events())
    if (counted !== undefined && counted > budget) {
      // the provider counted the compacted context itself over the budget: compacting again would loop
      throw new CortexError(
        'context_overflow',
        `the context is over the compaction budget right after compacting (the provider counted ${counted} tokens, the budget is ${budget}); ` +
          'the fixed part (system prompt, tools, keep-set) is too large for this window: set --context-window to the model\'s real window, shorten the todos or start a new session'
      )
    }
    if ((await compactHistory(ctx, 'auto')) === 'stopped') return 'stopped'
  }
  let result: T
  try {
    result = await request()
  } catch (err) {
    if (!isPromptTooLong(err) || ctx.signal.aborted) throw err
    if ((await compactHistory(ctx, 'overflow')) === 'stopped') return 'stopped'
    try {
      result = await request()
    } catch (again) {
      if (isPromptTooLong(again)) {
        throw new CortexError(
          'context_overflow',
          `the provider still says the prompt is too long after compacting (once; never repeated): ${again instanceof Error ? again.message.slice(0, 200) : String(again)}; set --context-window to the model's real window or start a new session`,
          { cause: again }
        )
      }
      throw again
    }
  }
  emitContextUsage(ctx)
  return result
}

/** Emit `context_usage` for the history as it stands (the latest reported tokens plus what came since). */
export function emitContextUsage(ctx: Pick<RequestCompaction, 'events' | 'emit' | 'fixedTokens' | 'settings' | 'turnId'>): void {
  const { tokens } = contextSize(ctx.events(), ctx.fixedTokens)
  const e: SessionEvent = { type: 'context_usage', ...(ctx.turnId ? { turnId: ctx.turnId } : {}), tokens, window: ctx.settings.window, threshold: ctx.settings.threshold }
  ctx.emit(e)
}

/** What a turn gives compaction: settings, session state the keep-set reads, and a hook to count summariser calls. */
export interface TurnCompaction {
  settings: CompactionContext['settings']
  todos: CompactionContext['todos']
  /** The goal's text when one is set (issue 11B passes it). */
  goal?: CompactionContext['goal']
  onSummaryCall?: CompactionContext['onSummaryCall']
  beforeCompact?: CompactionContext['beforeCompact']
}

/** The parts of a turn's dependencies compaction uses (structurally a subset of turn-loop's TurnDeps). */
export interface TurnSide {
  turnId: string
  model: CompactionContext['model']
  signal: AbortSignal
  events: CompactionContext['events']
  emit: CompactionContext['emit']
  getGuest: NonNullable<CompactionContext['getGuest']>
  classifyError: CompactionContext['classifyError']
}

/** The compaction context of one request of a turn: its system prompt and offered tools set the fixed part. */
export function turnCompactionContext(turn: TurnSide, c: TurnCompaction, systemPrompt: string, offered: ReadonlyArray<{ name: string; description: string }>): RequestCompaction {
  return {
    turnId: turn.turnId,
    model: turn.model,
    signal: turn.signal,
    events: turn.events,
    emit: turn.emit,
    getGuest: turn.getGuest,
    classifyError: turn.classifyError,
    todos: c.todos,
    ...(c.goal ? { goal: c.goal } : {}),
    ...(c.onSummaryCall ? { onSummaryCall: c.onSummaryCall } : {}),
    ...(c.beforeCompact ? { beforeCompact: c.beforeCompact } : {}),
    settings: c.settings,
    fixedTokens: fixedTokensOf(systemPrompt, offered)
  }
}

/**
 * A compaction asked for by the user (op `compact`), run as its own turn of the session: the mode's
 * system prompt and tools set the fixed part. `focus` goes to the summariser.
 * @returns `completed`, or `stopped` after Stop
 * @throws CortexError `compaction_failed` / `context_overflow` (compact.ts)
 */
export async function runCompactionTurn(turn: TurnSide, c: TurnCompaction, systemPrompt: string, offered: ReadonlyArray<{ name: string; description: string }>, focus?: string): Promise<'completed' | 'stopped'> {
  const ctx = turnCompactionContext(turn, c, systemPrompt, offered)
  const outcome = await compactHistory(ctx, 'manual', focus)
  if (outcome === 'compacted') emitContextUsage(ctx)
  return outcome === 'compacted' ? 'completed' : 'stopped'
}
