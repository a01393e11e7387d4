/**
 * The session's goal (ADR 0014): wires the pure state machine (harness/goal.ts) to the session —
 * goal operations, Stop, the start and end of each turn, the goal_done tool's state — and emits
 * `goal_updated`. The snapshot follows the persisted events (`apply`), so a resumed session knows its
 * goal; resume.ts pauses a goal a restart found active.
 */
import type { Operation, SessionEvent } from '../../shared/events'
import type { Logger } from '../../shared/logger-types'
import { GoalMachine, isGoalOperation, type GoalOperation, type GoalTurnReason } from '../harness/goal'
import type { TurnUsage } from '../../shared/usage'
import type { GoalToolState } from '../tools/tool'
import { changedCheckFiles, checkFiles } from './goal-check-files'

/** What the goal needs from its session. */
export interface SessionGoalDeps {
  emit(event: SessionEvent): void
  isRunning(): boolean
  /** Start a turn whose user message is `text` (the session's startTurn). */
  startTurn(text: string): void
  /** The repository (absolute real path): where the files the check names are fingerprinted. */
  repo: string
  logger: Logger
}

/** The goal part of one session. */
export class SessionGoal {
  private readonly machine = new GoalMachine()

  /** @param deps see {@link SessionGoalDeps} */
  constructor(private readonly deps: SessionGoalDeps) {}

  /** Follow a persisted event (replayed at resume or just emitted). */
  apply(event: SessionEvent): void {
    this.machine.apply(event)
  }

  /** Whether the goal is active now and turn `turnId` works toward it (goal_done is offered then). */
  activeFor(turnId: string): boolean {
    return this.machine.isActive() && this.machine.isGoalTurn(turnId)
  }

  /**
   * Handle a goal operation (and only those: returns false for any other op). Starts the goal's turn
   * when none runs.
   * @throws CortexError('invalid_input') when the goal cannot move that way
   */
  submit(op: Operation): op is GoalOperation {
    if (!isGoalOperation(op)) return false
    // the files the check names, as they are now: a passing check with one changed needs the user's word
    const files = op.type === 'set_goal' && op.check ? checkFiles(this.deps.repo, op.check) : undefined
    const { update, next } = this.machine.submit(op, !this.deps.isRunning(), files)
    if (update) {
      this.deps.logger.info('goal updated', { op: op.type, state: update.state })
      this.deps.emit(update)
    }
    if (next) this.deps.startTurn(next)
    return true
  }

  /** Stop pressed: an active goal pauses. */
  stop(): void {
    const update = this.machine.stop()
    if (update) this.deps.emit(update)
  }

  /** A turn starts (after its user messages are emitted). */
  turnStarted(turnId: string): void {
    this.machine.turnStarted(turnId)
  }

  /**
   * A turn ended (its `turn_ended` emitted): count it, emit the goal's new state.
   * @returns the message of the next turn toward the goal, or undefined when none starts
   */
  turnEnded(turnId: string, reason: GoalTurnReason, usage: TurnUsage | undefined, lockPending: boolean): string | undefined {
    const tokens = usage ? usage.inputTokens + usage.outputTokens : 0
    const { update, next } = this.machine.turnEnded(turnId, reason, tokens, lockPending)
    if (update) {
      this.deps.logger.info('goal turn ended', { turnId, state: update.state, turnsUsed: update.turnsUsed, tokensUsed: update.tokensUsed })
      this.deps.emit(update)
    }
    return next
  }

  /** goal_done's view of the goal during turn `turnId`. */
  toolState(turnId: string): GoalToolState {
    const m = this.machine
    return {
      current: () => (this.activeFor(turnId) ? m.current?.goal ?? null : null),
      changedCheckFiles: () => changedCheckFiles(this.deps.repo, m.current?.goal.checkFiles ?? {}),
      met: (evidence, changed = []) => m.claimed(changed.length > 0 ? { kind: 'unconfirmed', evidence, changed } : { kind: 'met', evidence }),
      blocked: (reason) => {
        m.claimed({ kind: 'blocked', reason })
        return m.blockerRepeats(reason)
      }
    }
  }
}
