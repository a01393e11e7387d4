/**
 * Runs one tool call: refuses tools the mode in force withholds, validates arguments with the
 * tool's zod schema, attaches the guest only for a tool that needs one, executes, and bounds the
 * result (the one cap of tool results: MAX_RESULT_CHARS, head+tail). Model-fixable failures come back as error
 * results; infrastructure failures are rethrown as CortexError so the turn ends with a typed error.
 */
import type { FileDiff } from '../../shared/file-diff'
import { CortexError } from '../../shared/errors'
import type { ToolCall } from '../../shared/events'
import { isToolAllowed, offeredTools, type ExtraTool, type Mode, type ModeLock } from '../../shared/modes'
import { GuestCallError } from '../guest/guest'
import { isAbortError as isAbortInChain } from '../providers'
import { MAX_RESULT_CHARS, capHeadTail } from '../tools/limits'
import { ToolError, type ToolContext, type ToolDefinition, type ToolRunContext } from '../tools/tool'

/** Largest tool result stored in the session and sent to the model, in characters (~8k tokens); one constant shared with the tools (tools/limits). */
export { MAX_RESULT_CHARS }

/** The mode and lock in force when a call runs: together they decide which tools may run ({@link offeredTools}). */
export interface ModeState {
  mode: Mode
  lock?: ModeLock | null
  /** A goal is active: goal_done may run (shared/goal.ts). */
  goalActive?: boolean
  /** Tools beyond the catalog in force (turn-tools.ts); absent: none. */
  extras?: readonly ExtraTool[]
}

/** Outcome of one call: the result text for the model, whether it is an error, and a file tool's real diff (front ends only). */
export interface DispatchResult {
  output: string
  isError: boolean
  diff?: FileDiff
  /** An image the tool returned (tool.ts ToolResult.image). */
  image?: { bytes: Uint8Array; name: string }
}

/** Bound a result text (or an error's message) to {@link MAX_RESULT_CHARS} with the tools' own head+tail cut (tools/limits): the only cap applied to every result. */
export function boundResult(text: string, max = MAX_RESULT_CHARS): string {
  return capHeadTail(text, max).text
}

/** Whether `err` is an abort (Stop) rather than a failure: the turn's signal, or an abort anywhere in its cause chain. */
export function isAbortError(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || isAbortInChain(err)
}

/**
 * Execute `call` under `mode` (the mode and lock in force NOW, not when the call was requested).
 * @param mode a mode, or a mode with its lock; a name absent from `offeredTools(mode, lock)` is refused
 * @param catalog every tool by name
 * @param ctx the call's context; `ctx.getGuest` is awaited only for a valid call of a tool that
 *   needs the guest ({@link ToolDefinition.needsGuest}), so a refused call never starts one
 * @param invalidReason set when the model's arguments could not be parsed or were cut off
 * @returns the result for the model; never throws for model-fixable problems
 * @throws CortexError for infrastructure failures (guest could not start or died, Docker gone); AbortError on Stop
 */
export async function dispatchToolCall(
  call: ToolCall,
  mode: Mode | ModeState,
  catalog: Readonly<Record<string, ToolDefinition>>,
  ctx: ToolRunContext,
  invalidReason?: string
): Promise<DispatchResult> {
  const state: ModeState = typeof mode === 'string' ? { mode } : mode
  if (!isToolAllowed(state.mode, call.name, state.lock, state.goalActive, state.extras)) {
    const known = Object.hasOwn(catalog, call.name) // not `in`: "constructor" is no tool
    const offered = offeredTools(state.mode, state.lock, state.goalActive, state.extras).join(', ')
    const why = !known ? 'does not exist' : call.name === 'goal_done' ? 'is offered only while a goal is active' : state.lock && isToolAllowed(state.mode, call.name, null, false, state.extras)
      ? `is blocked until the user accepts the ${state.lock.kind} or switches mode`
      : `is not available in ${state.mode} mode`
    return { isError: true, output: `Error: tool "${call.name}" ${why}; it was not run. Tools available now: ${offered}.` }
  }
  if (invalidReason) return { isError: true, output: `Error: ${invalidReason}; the call was not run.` }
  const tool = Object.hasOwn(catalog, call.name) ? catalog[call.name] : undefined
  if (!tool) return { isError: true, output: `Error: tool "${call.name}" does not exist.` }
  const parsed = tool.inputSchema.safeParse(call.args)
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ')
    return { isError: true, output: `Error: invalid arguments for ${call.name}: ${issues}. The call was not run.` }
  }
  // PreToolUse hooks (extensions/hooks) see a valid, allowed call before its approval; a block is its result
  const pre = await ctx.preToolUse?.({ ...call, args: parsed.data })
  if (pre?.block !== undefined) return { isError: true, output: boundResult(pre.block) }
  // approvals (src/main/harness/approvals): asked only for a call that would run; may refuse, or hand a one-off guest
  const approval = ctx.approve ? await ctx.approve({ ...call, args: parsed.data }, pre?.permission) : undefined
  // a switch to a mode without this tool while the call waited means it does not run (ADR 0019)
  const refusal = (waited: string): DispatchResult | undefined => {
    const why = ctx.stillAllowed?.(waited)
    return why ? { isError: true, output: `Error: ${why}` } : undefined
  }
  if (approval && !approval.run) return (approval.withdrawn && refusal('its approval')) || { isError: true, output: boundResult(approval.output) }
  const getGuest = approval?.getGuest ?? ctx.getGuest
  try {
    const switched = approval ? refusal('its approval') : undefined
    if (switched) return switched
    const beforeSideEffect = (): void => {
      const why = ctx.stillAllowed?.('its own checks in the guest')
      if (why) throw new ToolError(why)
    }
    const toolCtx = tool.needsGuest === false ? withoutGuest(ctx, call.name) : { ...ctx, guest: await getGuest(), beforeSideEffect }
    const late = refusal('the guest (its start and the turn-start snapshot)')
    if (late) return late
    const result = await tool.execute(parsed.data, toolCtx)
    return { output: boundResult(result.output), isError: result.isError ?? false, ...(result.diff ? { diff: result.diff } : {}), ...(result.image ? { image: result.image } : {}) }
  } catch (err) {
    if (isAbortError(err, ctx.signal)) throw err
    if (err instanceof ToolError) return { isError: true, output: boundResult(`Error: ${err.message}`) }
    if (err instanceof GuestCallError) return { isError: true, output: boundResult(`Error: ${err.code}: ${err.message}`) }
    if (err instanceof CortexError) throw err
    const message = err instanceof Error ? err.message : String(err)
    throw new CortexError('guest_failed', `tool ${call.name} failed in the guest: ${message}`, { cause: err })
  } finally {
    await approval?.release?.()
  }
}

/** The context of a tool that declared `needsGuest: false`: touching `guest` is a programming error. */
function withoutGuest(ctx: ToolRunContext, name: string): ToolContext {
  const { signal, session, emitOutput } = ctx
  return {
    signal,
    session,
    emitOutput,
    get guest(): never {
      throw new CortexError('internal', `tool ${name} declares needsGuest: false but used the guest`)
    }
  }
}
