/**
 * The Code turn: one model step at a time (step-stream.ts) with tools declared WITHOUT `execute`;
 * the loop runs the step's calls in order inside the guest (run-call.ts), records the results, and
 * asks again, until the model stops calling tools or Stop aborts. There is no round budget.
 */
import { offeredTools } from '../../shared/modes'
import type { ToolDefinition } from '../tools/tool'
import { closeUnstarted } from './interrupted'
import { LoopGuard } from './loop-guard'
import { runCall } from './run-call'
import { streamStep } from './step-stream'
import { turnTools } from './turn-tools'
import type { TurnDeps } from './turn-deps'
import { compactAroundRequest, turnCompactionContext } from './compaction/trigger'

export type { TurnDeps } from './turn-deps'
export { MAX_STEP_TEXT_CHARS } from './step-stream'

/** How a turn ended (errors are thrown instead). */
export type TurnOutcome = 'completed' | 'stopped'

/** Consecutive model steps with a malformed tool call the SDK cannot parse (e.g. an empty name) before the turn ends with an error. */
export const MAX_MALFORMED_STEPS = 3

/**
 * Run one turn to its end.
 * @returns `completed` when the model answered without tool calls, `stopped` after Stop
 * @throws CortexError for provider or guest failures (the session emits it and ends the turn)
 */
export async function runTurn(deps: TurnDeps): Promise<TurnOutcome> {
  const { signal, turnId } = deps
  let malformed = 0
  const guard = new LoopGuard()
  // SessionStart and UserPromptSubmit hooks: a blocked prompt makes no request
  if (deps.hooks && !(await deps.hooks.turnStart(deps.events()))) return signal.aborted ? 'stopped' : 'completed'
  for (let first = true; ; first = false) {
    if (signal.aborted) return 'stopped'
    // step boundary: messages typed during the turn reach the model now, each as its own user message
    if (!first) for (const m of deps.takeQueued?.() ?? []) deps.emit({ type: 'user_message', turnId, text: m.text, queueId: m.queueId, ...(m.images?.length ? { images: m.images } : {}), ...(m.command ? { command: m.command } : {}) })
    if (!first) await deps.beforeStep?.()
    const mode = deps.getMode()
    const lock = deps.getLock?.() ?? null
    const goalActive = deps.getGoalActive?.() ?? false
    const tools = turnTools(deps)
    const extras = tools.extras
    // a deferred tool (MCP schema deferral) may run but its schema is not sent until it is loaded
    const offered = offeredTools(mode, lock, goalActive, extras).map((name) => tools.catalog[name]).filter((t): t is ToolDefinition => !!t && !t.deferred)
    // compaction before the request when over the threshold, and once on "prompt too long" (compaction/trigger.ts)
    const step = deps.compaction
      ? await compactAroundRequest(turnCompactionContext(deps, deps.compaction, deps.systemPrompt(mode, lock), offered), () => streamStep(deps, { mode, lock, goalActive, extras }, offered))
      : await streamStep(deps, { mode, lock, goalActive, extras }, offered)
    if (step === 'stopped') return 'stopped'
    malformed = step.malformed ? malformed + 1 : 0
    if (step.malformed && malformed >= MAX_MALFORMED_STEPS) throw deps.classifyError(step.malformed)
    // the step's reasoning blocks stay with its message: the provider gets them back before the text and calls (reasoning.ts)
    const r = step.reasoning
    deps.emit({
      type: 'assistant_message',
      turnId,
      text: step.text,
      toolCalls: step.calls.map(({ callId, name, args }) => ({ callId, name, args })),
      ...(r && r.blocks.length > 0 ? { reasoning: r.blocks } : {})
    })
    if (signal.aborted) {
      // calls whose arguments were complete when Stop came are recorded, each with a "not run" result
      closeUnstarted(turnId, deps.emit, step.calls, 'stopped')
      return 'stopped'
    }
    // Stop hooks may send the turn on with a reason the model reads
    if (step.calls.length === 0 && !(await deps.hooks?.stop(step.text))) return signal.aborted ? 'stopped' : 'completed'
    for (const [i, call] of step.calls.entries()) {
      if (signal.aborted) {
        closeUnstarted(turnId, deps.emit, step.calls.slice(i), 'stopped')
        return 'stopped'
      }
      try {
        await runCall(deps, call, guard)
      } catch (err) {
        closeUnstarted(turnId, deps.emit, step.calls.slice(i + 1), 'error')
        throw err
      }
      // a hook's `continue: false` ends the turn after this call
      if (deps.hooks?.halted()) {
        closeUnstarted(turnId, deps.emit, step.calls.slice(i + 1), 'stopped')
        return 'completed'
      }
    }
  }
}
