/**
 * The goal state machine (ADR 0014), pure: no I/O, no timers. It turns the user's goal operations,
 * the model's `goal_done` claims and the end of each turn into `goal_updated` snapshots, and says
 * whether the harness starts the next turn toward the goal and with which message. The session
 * wiring (src/main/session/session-goal.ts) feeds it and emits what it returns.
 *
 * A met claim whose check names files changed since the goal was set (session/goal-check-files.ts)
 * ends the turn `needs_confirmation` instead: only the user's `confirm_goal` makes it met.
 *
 * Rules: a turn counts toward the goal when the goal was active as it started (counted when it
 * ends, with its tokens: input, cached included, + output of its `usage` events). At a counted
 * turn's end, in this order: a claim with passing evidence → `met`; Stop → `paused`; a failed turn →
 * `paused`; the same blocker reported on {@link GOAL_BLOCKED_REPEATS} consecutive turns → `blocked`;
 * turn or token budget used up → `budget_spent`; a plan/spec awaiting the user → `paused`; otherwise
 * it stays `active` and the next turn starts with {@link continuationMessage}.
 */
import { CortexError } from '../../shared/errors'
import {
  DEFAULT_GOAL_TURNS,
  FINAL_GOAL_STATES,
  GOAL_BLOCKED_REPEATS,
  type GoalState,
  type GoalUpdated
} from '../../shared/goal'
import type { Operation, SessionEvent } from '../../shared/events'

/** The goal operations of {@link Operation}. */
export type GoalOperation = Extract<Operation, { type: 'set_goal' | 'pause_goal' | 'resume_goal' | 'confirm_goal' | 'clear_goal' | 'set_goal_budget' }>

const GOAL_OPS: ReadonlySet<string> = new Set(['set_goal', 'pause_goal', 'resume_goal', 'confirm_goal', 'clear_goal', 'set_goal_budget'])

/** Whether `op` is one of the goal operations. */
export function isGoalOperation(op: Operation): op is GoalOperation {
  return GOAL_OPS.has(op.type)
}

/**
 * What the model said through `goal_done` during a turn: the goal is met (check passed), met by a
 * check whose named files `changed` since the goal was set (the user must confirm), or a blocker.
 */
export type GoalClaim = { kind: 'met'; evidence: string } | { kind: 'unconfirmed'; evidence: string; changed: string[] } | { kind: 'blocked'; reason: string }

/** What the end of a turn did to the goal: the snapshot to emit (if any) and the next turn's message (if one starts). */
export interface GoalTurnEnd {
  update?: GoalUpdated
  next?: string
}

/** How a turn ended, as `turn_ended` says. */
export type GoalTurnReason = 'completed' | 'stopped' | 'error'

/** A blocker as compared across turns: case, spacing and trailing punctuation do not matter. */
export function normalizeBlocker(reason: string): string {
  return reason.toLowerCase().replace(/\s+/g, ' ').trim().replace(/[.!]+$/, '')
}

/**
 * The user message of a turn toward the goal: what it is, the progress, and how to finish.
 * @param first the turn set_goal starts (else a continuation, a resume included)
 */
export function continuationMessage(g: GoalUpdated, first = false): string {
  const turn = g.turnsUsed + 1
  const tokens = g.tokenBudget === null ? `${g.tokensUsed} tokens used` : `${g.tokensUsed} of ${g.tokenBudget} tokens used`
  return [
    first ? `Goal: ${g.goal.text}` : `Continue working toward the goal: ${g.goal.text}`,
    '',
    `Progress: turn ${turn} of ${g.turnBudget}; ${tokens}.${g.reason && g.turnsUsed > 0 ? ` Last: ${g.reason}` : ''}`,
    g.goal.check
      ? `When the goal is met, call goal_done with short evidence; it is met only if \`${g.goal.check}\` then exits 0 in the workspace.`
      : 'When the goal is met, call goal_done with short evidence.',
    'If you cannot make progress without the user, call goal_done with `blocked` naming the blocker, and end your turn.'
  ].join('\n')
}

/** The goal of one session: its last snapshot plus what the running turn claimed. */
export class GoalMachine {
  private snapshot: GoalUpdated | null = null
  /** The turn started while the goal was active, and which goal (a new set_goal starts a new generation). */
  private goalTurn: { turnId: string; generation: number } | null = null
  private generation = 0
  private claim: GoalClaim | null = null
  private blocker: { text: string; repeats: number } | null = null

  /** The last snapshot, or null when no goal was ever set. */
  get current(): GoalUpdated | null {
    return this.snapshot
  }

  /** Whether the goal is active (goal_done is offered, turns continue). */
  isActive(): boolean {
    return this.snapshot?.state === 'active'
  }

  /** Replay or follow a persisted event: a `goal_updated` becomes the snapshot. Other events are ignored. */
  apply(event: SessionEvent): void {
    if (event.type === 'goal_updated') this.snapshot = event
  }

  /**
   * Apply a user's goal operation.
   * @param checkFiles for set_goal: the fingerprints of the files its check names (session/goal-check-files.ts)
   * @returns the snapshot to emit and, when a turn should start now (`idle`), its message
   * @throws CortexError('invalid_input') when there is no goal, or it cannot move that way
   */
  submit(op: GoalOperation, idle: boolean, checkFiles?: Record<string, string>): GoalTurnEnd {
    const g = this.snapshot
    if (op.type === 'set_goal') {
      this.generation++
      this.claim = null
      this.blocker = null
      const update: GoalUpdated = {
        type: 'goal_updated',
        goal: { text: op.text, ...(op.check ? { check: op.check } : {}), ...(op.check && checkFiles ? { checkFiles } : {}) },
        state: 'active',
        turnsUsed: 0,
        turnBudget: op.turnBudget ?? DEFAULT_GOAL_TURNS,
        tokensUsed: 0,
        tokenBudget: op.tokenBudget ?? null
      }
      return { update, ...(idle ? { next: continuationMessage(update, true) } : {}) }
    }
    if (!g || g.state === 'cleared') throw new CortexError('invalid_input', 'there is no goal: set one first')
    switch (op.type) {
      case 'pause_goal':
        if (g.state !== 'active') throw new CortexError('invalid_input', `the goal is ${label(g.state)}, not active`)
        return { update: this.move(g, 'paused', 'paused by the user') }
      case 'resume_goal': {
        if (g.state !== 'paused' && g.state !== 'needs_confirmation') throw new CortexError('invalid_input', `the goal is ${label(g.state)}: only a paused goal resumes`)
        if (spent(g)) throw new CortexError('invalid_input', 'the goal\'s budget is spent: raise it (set_goal_budget) first')
        this.blocker = null
        const update = this.move(g, 'active', 'resumed by the user')
        return { update, ...(idle ? { next: continuationMessage(update) } : {}) }
      }
      case 'confirm_goal':
        if (g.state !== 'needs_confirmation') throw new CortexError('invalid_input', `the goal is ${label(g.state)}: only a goal that needs confirmation can be confirmed`)
        return { update: this.move(g, 'met', `confirmed by the user (${g.reason ?? 'check passed'})`) }
      case 'clear_goal':
        this.generation++
        return { update: this.move(g, 'cleared', 'cleared by the user') }
      case 'set_goal_budget': {
        const next: GoalUpdated = {
          ...g,
          ...(op.turnBudget !== undefined ? { turnBudget: op.turnBudget } : {}),
          ...(op.tokenBudget !== undefined ? { tokenBudget: op.tokenBudget } : {}),
          reason: 'budget changed by the user'
        }
        // a raised budget reopens a spent goal, paused: it resumes only when the user says so
        if (g.state === 'budget_spent' && !spent(next)) return { update: { ...next, state: 'paused' } }
        if (g.state === 'active' && spent(next)) return { update: { ...next, state: 'budget_spent' } }
        return { update: next }
      }
    }
  }

  /** Stop was pressed: an active goal pauses now (the running turn still counts when it ends). */
  stop(): GoalUpdated | undefined {
    const g = this.snapshot
    return g?.state === 'active' ? this.move(g, 'paused', 'stopped by the user') : undefined
  }

  /** A turn starts: it counts toward the goal if the goal is active now. */
  turnStarted(turnId: string): void {
    this.goalTurn = this.isActive() ? { turnId, generation: this.generation } : null
    this.claim = null
  }

  /** Whether `turnId` is a turn toward the current goal. */
  isGoalTurn(turnId: string): boolean {
    return this.goalTurn?.turnId === turnId && this.goalTurn.generation === this.generation
  }

  /** The model called goal_done during the running turn (for `met`, only once the check passed). */
  claimed(claim: GoalClaim): void {
    this.claim = claim
  }

  /** The blocker count a `blocked` claim reaches if the turn ends now (1 for a new blocker). */
  blockerRepeats(reason: string): number {
    return this.blocker?.text === normalizeBlocker(reason) ? this.blocker.repeats + 1 : 1
  }

  /**
   * A turn ended. Counts it (with `tokens`) when it was a goal turn and decides the goal's next state.
   * @param lockPending a plan or spec awaits the user's decision (the goal pauses: nothing can move until then)
   */
  turnEnded(turnId: string, reason: GoalTurnReason, tokens: number, lockPending: boolean): GoalTurnEnd {
    const g = this.snapshot
    if (!g) return {}
    if (!this.isGoalTurn(turnId)) {
      // a goal set or resumed while another turn ran starts its turn after that one
      return g.state === 'active' && reason === 'completed' && !lockPending ? { next: continuationMessage(g, g.turnsUsed === 0) } : {}
    }
    this.goalTurn = null
    const claim = this.claim
    this.claim = null
    const counted: GoalUpdated = { ...g, turnsUsed: g.turnsUsed + 1, tokensUsed: g.tokensUsed + tokens }
    if (claim?.kind === 'met') return { update: this.move(counted, 'met', claim.evidence) }
    if (claim?.kind === 'unconfirmed') return { update: this.move(counted, 'needs_confirmation', unconfirmedReason(claim)) }
    if (g.state !== 'active') return { update: counted } // paused (Stop, user) during the turn: progress only
    if (reason === 'stopped') return { update: this.move(counted, 'paused', 'stopped by the user') }
    if (reason === 'error') return { update: this.move(counted, 'paused', 'the turn failed; resume when the cause is fixed') }
    if (claim?.kind === 'blocked') {
      const repeats = this.blockerRepeats(claim.reason)
      this.blocker = { text: normalizeBlocker(claim.reason), repeats }
      if (repeats >= GOAL_BLOCKED_REPEATS) return { update: this.move(counted, 'blocked', claim.reason) }
    } else {
      this.blocker = null
    }
    if (spent(counted)) {
      const why = counted.turnsUsed >= counted.turnBudget ? `turn budget spent (${counted.turnsUsed}/${counted.turnBudget})` : `token budget spent (${counted.tokensUsed}/${counted.tokenBudget})`
      return { update: this.move(counted, 'budget_spent', why) }
    }
    if (lockPending) return { update: this.move(counted, 'paused', 'waiting for your decision on the plan or spec') }
    const update: GoalUpdated = { ...counted, reason: claim?.kind === 'blocked' ? `blocked: ${claim.reason} (${this.blocker?.repeats}/${GOAL_BLOCKED_REPEATS})` : `turn ${counted.turnsUsed} ended without the goal met` }
    return { update, next: continuationMessage(update) }
  }

  private move(g: GoalUpdated, state: GoalState, reason: string): GoalUpdated {
    if (FINAL_GOAL_STATES.has(state)) this.blocker = null
    return { ...g, state, reason }
  }
}

/** Why a passing check did not meet the goal, and what the user can do. */
export function unconfirmedReason(claim: { evidence: string; changed: string[] }): string {
  return `the check passed, but ${claim.changed.join(', ')} changed since the goal was set; confirm it (/goal confirm, Confirm met, or the confirm_goal operation), resume to keep working, or set a new goal. Evidence: ${claim.evidence}`
}

function spent(g: GoalUpdated): boolean {
  return g.turnsUsed >= g.turnBudget || (g.tokenBudget !== null && g.tokensUsed >= g.tokenBudget)
}

function label(state: GoalState): string {
  return state.replace('_', ' ')
}

/**
 * The goal a resumed session (restart, `--resume`) starts with: the last `goal_updated` of `history`,
 * paused when it was active (a goal never continues silently: the user resumes it). Undefined when
 * there is no goal or it was not active.
 */
export function pausedAtResume(history: readonly SessionEvent[]): GoalUpdated | undefined {
  let last: GoalUpdated | undefined
  for (const e of history) if (e.type === 'goal_updated') last = e
  return last?.state === 'active' ? { ...last, state: 'paused', reason: 'session resumed: resume the goal to continue' } : undefined
}
