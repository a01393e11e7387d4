/**
 * Loop guard (not a round budget: Code turns have none). The same tool call — same name, same
 * arguments — failing the same way, over and over, is a model stuck in a loop: after the
 * {@link LOOP_WARN_AT}rd identical failure the model is told so (a note appended to the tool
 * result); at the {@link LOOP_STOP_AT}th the turn ends with `loop_detected`. A success or a
 * different result resets the count of that call, so polling (identical calls whose results
 * change) is never a loop. A "failure" is an error result, or a bash result with a non-zero exit;
 * results are compared without the parts that differ on every run (bash's duration).
 */
import { CortexError } from '../../shared/errors'

/** Identical failures after which the model is warned. */
export const LOOP_WARN_AT = 3
/** Identical failures at which the turn stops. */
export const LOOP_STOP_AT = 5
/** Longest argument summary quoted in the stop message, in characters. */
const QUOTED_ARGS_CHARS = 120

/** What to do with one recorded result. */
export interface LoopVerdict {
  /** Text to append to the tool result the model gets (the warning), if any. */
  note?: string
  /** The error ending the turn (after the result is recorded), if any. */
  stop?: CortexError
}

/** Tracks one turn's tool calls; create one per turn. */
export class LoopGuard {
  private readonly streaks = new Map<string, { result: string; count: number }>()

  /**
   * Record a call's result and say whether it completes a loop.
   * @param name tool name
   * @param args the call's arguments as recorded (compared by value, key order ignored)
   * @param isError whether the result is an error result
   * @param result the result text the model gets
   */
  record(name: string, args: unknown, isError: boolean, result: string): LoopVerdict {
    const key = `${name}\u0000${stableJson(args)}`
    if (!isFailure(name, isError, result)) {
      this.streaks.delete(key)
      return {}
    }
    const prev = this.streaks.get(key)
    const outcome = sameWay(result)
    const count = prev && prev.result === outcome ? prev.count + 1 : 1
    this.streaks.set(key, { result: outcome, count })
    if (count >= LOOP_STOP_AT) {
      const quoted = stableJson(args)
      const shown = quoted.length > QUOTED_ARGS_CHARS ? `${quoted.slice(0, QUOTED_ARGS_CHARS - 1)}…` : quoted
      return {
        note: `\n\n[Cortex: this exact call failed the same way ${count} times; the turn is stopped.]`,
        stop: new CortexError(
          'loop_detected',
          `stopped a loop: the model called ${name} ${shown} ${count} times in a row with the same failure; ` +
            'send a message with a hint or a different approach to continue'
        )
      }
    }
    if (count >= LOOP_WARN_AT) {
      return {
        note:
          `\n\n[Cortex: this exact call (same tool, same arguments) has now failed the same way ${count} times. ` +
          `Repeating it will not help: change the arguments, try a different approach, or ask the user. ` +
          `At ${LOOP_STOP_AT} identical failures the turn is stopped.]`
      }
    }
    return {}
  }
}

/** Whether a result counts as a failure: an error result, or bash reporting a non-zero (or no) exit code. */
function isFailure(name: string, isError: boolean, result: string): boolean {
  if (isError) return true
  if (name !== 'bash') return false
  const m = /^exit_code: (\S+)/.exec(result)
  return m !== null && m[1] !== '0'
}

/** A result as compared between calls: the parts that vary on every run (bash's `duration_ms` line) removed. */
function sameWay(result: string): string {
  return result.replace(/^duration_ms: \d+$/gm, 'duration_ms')
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same call. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  ) ?? 'undefined'
}
