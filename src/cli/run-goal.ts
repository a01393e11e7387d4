/**
 * `cortex run --goal TEXT`: the set_goal operation from the flags, a watcher that resolves once the
 * goal leaves the active state (the harness runs turn after turn toward it: src/main/harness/goal.ts),
 * and the exit status that state means: 0 met, 3 budget spent, blocked or needs confirmation (the
 * check passed but a file it names changed: `/goal confirm` or the confirm_goal operation), 130 paused by Stop
 * (Ctrl-C), 1 paused by a failed turn.
 */
import type { Operation, SessionEvent } from '../shared/events'
import type { GoalState } from '../shared/goal'

/** The goal flags of `cortex run`. */
export interface GoalFlags {
  goal?: string
  goalTurns?: number
  goalTokens?: number
  goalCheck?: string
}

/** Exit status of a goal run that is not met: budget spent, blocked, or waiting for the user to confirm a changed check. */
export const GOAL_NOT_MET_EXIT = 3

/** The `set_goal` operation the flags describe (undefined without --goal). */
export function goalOperation(flags: GoalFlags): Extract<Operation, { type: 'set_goal' }> | undefined {
  if (!flags.goal) return undefined
  return {
    type: 'set_goal',
    text: flags.goal,
    ...(flags.goalTurns !== undefined ? { turnBudget: flags.goalTurns } : {}),
    ...(flags.goalTokens !== undefined ? { tokenBudget: flags.goalTokens } : {}),
    ...(flags.goalCheck ? { check: flags.goalCheck } : {})
  }
}

/** Watches a session's events for the goal leaving `active`. */
export interface GoalWatch {
  onEvent(event: SessionEvent): void
  /** Resolves with the first non-active state after the goal was set (and its reason). */
  done: Promise<{ state: GoalState; reason?: string }>
}

/** Start watching; call before submitting set_goal. */
export function watchGoal(): GoalWatch {
  let resolve: (v: { state: GoalState; reason?: string }) => void = () => undefined
  const done = new Promise<{ state: GoalState; reason?: string }>((r) => (resolve = r))
  let set = false
  return {
    done,
    onEvent(event) {
      if (event.type !== 'goal_updated') return
      if (event.state === 'active') set = true
      else if (set) resolve({ state: event.state, ...(event.reason ? { reason: event.reason } : {}) })
    }
  }
}

/** The exit status of a goal run ending in `state` (`stopped`: Ctrl-C was pressed). */
export function goalExit(state: GoalState, stopped: boolean): 0 | 1 | 3 | 130 {
  if (stopped) return 130
  if (state === 'met') return 0
  if (state === 'budget_spent' || state === 'blocked' || state === 'needs_confirmation') return GOAL_NOT_MET_EXIT
  return 1 // paused by a failed turn (or cleared): the goal did not finish
}
