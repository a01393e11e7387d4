/**
 * Observation masking, the cheapest compaction: results of tool calls older than the last few
 * model steps are replaced by a one-line stub naming the call and how to get its content again.
 * The log keeps the results; only the rebuilt history (rebuild.ts) shows stubs.
 */
import type { SessionEvent } from '../../../shared/events'
import { estimateTokens } from './accounting'
import { isHistoryEvent } from './rebuild'

/** Model steps (assistant messages with their results) whose tool results are never masked. */
export const MASK_KEEP_STEPS = 3
/** Results shorter than this (characters) are not worth a stub. */
export const MASK_MIN_CHARS = 400
/** Longest quoted argument text in a stub (characters). */
const STUB_ARGS_CHARS = 160

/** The stub that replaces the result of `name(args)` (`chars` long) in the history. */
export function maskStub(name: string, args: unknown, chars: number): string {
  let a = JSON.stringify(args ?? {}) ?? '{}'
  if (a.length > STUB_ARGS_CHARS) a = `${a.slice(0, STUB_ARGS_CHARS)}…`
  return `[Cortex: the ${chars}-character result of ${name} ${a} was masked to save context; call ${name} again with these arguments to see it as it is now]`
}

/** What masking would do: the verbatim tail (history events kept as they are) and the tokens it saves. */
export interface MaskPlan {
  /** History events before the compaction point that stay verbatim (the `tailEvents` of the event). */
  tailEvents: number
  /** Estimated tokens saved (0: nothing worth masking). */
  savedTokens: number
}

/**
 * Plan a masking of `events` (the history the next request is built from, compactions applied):
 * the last {@link MASK_KEEP_STEPS} assistant steps stay whole; older results of at least
 * {@link MASK_MIN_CHARS} characters not masked yet would become stubs.
 * @param masked call ids already masked by earlier compactions
 */
export function planMask(events: readonly SessionEvent[], masked: ReadonlySet<string>, keepSteps = MASK_KEEP_STEPS): MaskPlan {
  let steps = 0
  let tail = 0
  let i = events.length - 1
  for (; i >= 0; i--) {
    const e = events[i]!
    if (!isHistoryEvent(e)) continue
    tail++
    if (e.type === 'assistant_message' && ++steps >= keepSteps) break
  }
  let saved = 0
  const calls = new Map<string, { name: string; args: unknown }>()
  for (let j = 0; j < i; j++) {
    const e = events[j]!
    if (e.type === 'assistant_message') for (const c of e.toolCalls) calls.set(c.callId, c)
    if (e.type === 'tool_call_finished' && !masked.has(e.callId) && e.result.length >= MASK_MIN_CHARS) {
      const call = calls.get(e.callId)
      saved += estimateTokens(e.result) - estimateTokens(maskStub(e.name, call?.args, e.result.length))
    }
  }
  return { tailEvents: tail, savedTokens: Math.max(0, saved) }
}
