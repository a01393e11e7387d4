/**
 * Running one call of a step: `tool_call_started`, PreToolUse hooks, dispatch against the mode and
 * lock in force now (tool-dispatch.ts), live output as `tool_output`, PostToolUse hooks, and `tool_call_finished` through the loop guard.
 * Stop records the call as interrupted with its partial output; an infrastructure failure is
 * recorded and rethrown so the turn ends with a typed error.
 */
import type { FileDiff } from '../../shared/file-diff'
import type { ToolCall } from '../../shared/events'
import { errorFields, NOOP_LOGGER } from '../../shared/logger-types'
import { switchedReason } from './mode-watch'
import { interruptedResult, KEPT_OUTPUT_EDGE_CHARS, OutputTail } from './interrupted'
import type { LoopGuard } from './loop-guard'
import type { StepCall } from './step-calls'
import { dispatchToolCall, isAbortError, type DispatchResult } from './tool-dispatch'
import type { ImageRef } from '../../shared/images'
import type { TurnDeps } from './turn-deps'
import { turnTools } from './turn-tools'

/**
 * Run `call` and record its result.
 * @throws CortexError for infrastructure failures (after recording the call's error result), and
 *   `loop_detected` from the loop guard
 */
export async function runCall(deps: TurnDeps, call: StepCall, guard: LoopGuard): Promise<void> {
  const { turnId, signal } = deps
  const started = Date.now()
  deps.emit({ type: 'tool_call_started', turnId, callId: call.callId, name: call.name, args: call.args })
  if (call.refusal) {
    finishCall(deps, call, guard, true, call.refusal)
    return
  }
  let output: string
  let diff: FileDiff | undefined
  let isError: boolean
  let image: DispatchResult['image']
  const partial = new OutputTail()
  // the bounded output kept with the session (tool_call_finished.output) for reloads and resumes
  const kept = new OutputTail(KEPT_OUTPUT_EDGE_CHARS)
  const keptOutput = (): { output?: string } => {
    const text = kept.text()
    return text === '' ? {} : { output: text }
  }
  // checked against the mode and lock in force now, not when the model asked, and again after every wait (mode-watch.ts)
  const modeNow = () => ({ mode: deps.getMode(), lock: deps.getLock?.() ?? null, goalActive: deps.getGoalActive?.() ?? false, extras: turnTools(deps).extras })
  // a switch that withholds the tool withdraws its approval card at once
  const watch = deps.modeWatch?.watch(call.name, modeNow, (s) => deps.approvals?.withdraw(call.callId, switchedReason(s.mode)))
  try {
    const mode = modeNow()
    // the guest is attached (and awaited) by dispatch, only for a valid call of a tool that needs it
    const ctx = {
      getGuest: () => deps.getGuest(call.name),
      signal,
      session: deps.session,
      emitOutput: (stream: 'stdout' | 'stderr', chunk: string) => {
        partial.add(chunk)
        kept.add(chunk)
        deps.emit({ type: 'tool_output', turnId, callId: call.callId, stream, chunk })
      },
      ...(deps.approvals ? { approve: (c: ToolCall, hook?: 'allow' | 'ask') => deps.approvals!.check(c, turnId, signal, hook) } : {}),
      ...(deps.hooks ? { preToolUse: (c: ToolCall) => deps.hooks!.preToolUse(c) } : {}),
      ...(watch ? { stillAllowed: (waited: string) => watch.refusal(waited) } : {})
    }
    ;({ output, isError, diff, image } = await dispatchToolCall(call, mode, turnTools(deps).catalog, ctx, call.invalidReason))
    // PostToolUse hooks after a call that ran and succeeded (a blocked or refused call is an error)
    if (!isError && deps.hooks) output += await deps.hooks.postToolUse(call, output)
  } catch (err) {
    if (isAbortError(err, signal)) {
      deps.emit({ type: 'tool_call_finished', turnId, callId: call.callId, name: call.name, isError: true, result: interruptedResult(partial), ...keptOutput() })
      return
    }
    const message = err instanceof Error ? err.message : String(err)
    ;(deps.logger ?? NOOP_LOGGER).error('tool call failed; the turn ends', { turnId, callId: call.callId, tool: call.name, ...errorFields(err) })
    deps.emit({ type: 'tool_call_finished', turnId, callId: call.callId, name: call.name, isError: true, result: `Error: ${message}`, ...keptOutput() })
    throw err
  } finally {
    watch?.close()
  }
  const note = await deps.afterCall?.(call.name, signal)
  if (note) output += note
  deps.logger?.debug('tool call finished', { turnId, callId: call.callId, tool: call.name, isError, ms: Date.now() - started, chars: output.length })
  const ref = image && storeToolImage(deps, image, (note) => (output += note))
  finishCall(deps, call, guard, isError, output, keptOutput().output, diff, ref)
}

/**
 * Store a tool's image in the session (once, by hash) for the result to reference; when it cannot
 * be (no store, or a cap the tool did not check), `note` gets a line for the model instead.
 */
function storeToolImage(deps: TurnDeps, image: NonNullable<DispatchResult['image']>, note: (text: string) => void): ImageRef | undefined {
  if (!deps.images) {
    note('\n(The image is not shown: this session keeps no images.)')
    return undefined
  }
  try {
    return deps.images.put(image.bytes, image.name)
  } catch (err) {
    note(`\n(The image is not shown: ${err instanceof Error ? err.message : String(err)})`)
    return undefined
  }
}

/**
 * Record a call's result, through the loop guard: the 3rd identical failure carries a note to the
 * model, the 5th is recorded and then ends the turn.
 * @throws CortexError('loop_detected') at the 5th identical failure
 */
function finishCall(deps: TurnDeps, call: StepCall, guard: LoopGuard, isError: boolean, result: string, output?: string, diff?: FileDiff, image?: ImageRef): void {
  const verdict = guard.record(call.name, call.args, isError, result)
  deps.emit({
    type: 'tool_call_finished', turnId: deps.turnId, callId: call.callId, name: call.name, isError, result: result + (verdict.note ?? ''),
    ...(output === undefined ? {} : { output }), ...(diff ? { diff } : {}), ...(image ? { image } : {})
  })
  if (verdict.stop) throw verdict.stop
}
