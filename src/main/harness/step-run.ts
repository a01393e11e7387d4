/**
 * Running one model step's calls (ADR 0037): in order, except that consecutive `task` calls run
 * together, at most `maxParallel` at a time (default 4). Stop stops them all (running calls are
 * recorded interrupted, queued ones not run); when one fails the turn, its siblings are stopped
 * and answered before the error is rethrown, so every call of the step has exactly one result.
 */
import { TASK_TOOL } from '../../shared/subagents'
import { closeUnstarted } from './interrupted'
import { DEFAULT_SUBAGENT_SETTINGS } from './subagent-settings'
import type { LoopGuard } from './loop-guard'
import { runCall } from './run-call'
import type { StepCall } from './step-calls'
import type { TurnDeps } from './turn-deps'

/** Default of how many `task` calls of one step run at the same time. */
export const DEFAULT_MAX_PARALLEL_SUBAGENTS = DEFAULT_SUBAGENT_SETTINGS.maxParallel

/**
 * Run `calls` (one step's, in the model's order) and record each one's result.
 * @returns `stopped` when Stop came before every call ended, `halted` when a hook answered `continue: false`, else `done`
 * @throws CortexError from a call that ends the turn (after every call of the step was answered)
 */
export async function runStepCalls(deps: TurnDeps, calls: readonly StepCall[], guard: LoopGuard): Promise<'done' | 'stopped' | 'halted'> {
  for (let i = 0; i < calls.length; ) {
    if (deps.signal.aborted) {
      closeUnstarted(deps.turnId, deps.emit, calls.slice(i), 'stopped')
      return 'stopped'
    }
    let end = i + 1
    if (parallel(calls[i]!)) while (end < calls.length && parallel(calls[end]!)) end++
    try {
      if (end - i === 1) await runCall(deps, calls[i]!, guard)
      else await runTogether(deps, calls.slice(i, end), guard)
    } catch (err) {
      closeUnstarted(deps.turnId, deps.emit, calls.slice(end), 'error')
      throw err
    }
    i = end
    // a hook's `continue: false` ends the turn after this call (or group); the rest are answered as not run
    if (deps.hooks?.halted() && i < calls.length) {
      closeUnstarted(deps.turnId, deps.emit, calls.slice(i), 'stopped')
      return 'halted'
    }
    if (deps.hooks?.halted()) return 'halted'
  }
  return deps.signal.aborted ? 'stopped' : 'done'
}

/** Calls that may run beside their neighbours: subagents (a valid call; a refused one is answered at once anyway). */
function parallel(call: StepCall): boolean {
  return call.name === TASK_TOOL
}

/**
 * Run `calls` at most `maxParallel` at a time under a signal of their own, which Stop and the
 * first failure abort; calls never started are answered as not run.
 * @throws the first failure, once every call of the group has its result
 */
async function runTogether(deps: TurnDeps, calls: readonly StepCall[], guard: LoopGuard): Promise<void> {
  const group = new AbortController()
  const onStop = (): void => group.abort(deps.signal.reason)
  deps.signal.addEventListener('abort', onStop, { once: true })
  const shared: TurnDeps = { ...deps, signal: group.signal }
  let next = 0
  let failure: { err: unknown } | undefined
  const worker = async (): Promise<void> => {
    while (next < calls.length && !group.signal.aborted) {
      const call = calls[next++]!
      try {
        await runCall(shared, call, guard)
      } catch (err) {
        failure ??= { err }
        group.abort(err)
      }
    }
  }
  const width = Math.max(1, Math.min(calls.length, deps.subagents?.maxParallel ?? DEFAULT_MAX_PARALLEL_SUBAGENTS))
  try {
    await Promise.all(Array.from({ length: width }, worker))
  } finally {
    deps.signal.removeEventListener('abort', onStop)
  }
  closeUnstarted(deps.turnId, deps.emit, calls.slice(next), failure ? 'error' : 'stopped')
  if (failure) throw failure.err
}
