/**
 * The long-horizon goal (ADR 0014): the operations that set, pause, resume, re-budget and clear it
 * (the user's only; the model can only declare it met or report a blocker through `goal_done`), the
 * `goal_updated` event every surface (app chip, CLI border, `cortex run`) reads, and the label they
 * show. Spread into the operation and event unions of ./events.ts.
 */
import { z } from 'zod'

/**
 * Where a goal stands. `active`: the harness starts the next turn toward it after each turn;
 * `paused`: by the user, by Stop, by a failed turn or by a restart/resume (resumes only when the user
 * says so); `met`: the model called `goal_done` with evidence and the check (if any) exited 0;
 * `needs_confirmation`: the check passed, but a file the check command names changed since the goal
 * was set (the model may have rewritten its own check): met only once the user sends `confirm_goal`;
 * `blocked`: the model reported the same blocker on {@link GOAL_BLOCKED_REPEATS} consecutive turns;
 * `budget_spent`: the turn or token budget is used up; `cleared`: the user removed it.
 */
export const GoalStateSchema = z.enum(['active', 'paused', 'needs_confirmation', 'met', 'blocked', 'budget_spent', 'cleared'])
/** See {@link GoalStateSchema}. */
export type GoalState = z.infer<typeof GoalStateSchema>

/** States a goal never leaves except by a new `set_goal`. */
export const FINAL_GOAL_STATES: ReadonlySet<GoalState> = new Set(['met', 'blocked', 'budget_spent', 'cleared'])

/** Turn budget of a goal set without one. */
export const DEFAULT_GOAL_TURNS = 20
/** Most turns a goal may be given. */
export const MAX_GOAL_TURNS = 1000
/** Consecutive turns reporting the same blocker that end a goal `blocked`. */
export const GOAL_BLOCKED_REPEATS = 3

const TurnBudgetSchema = z.number().int().min(1).max(MAX_GOAL_TURNS)
/** Tokens: input (cached included) + output of every model request of the goal's turns. */
const TokenBudgetSchema = z.number().int().min(1)

/**
 * Goal operations (the user's only). `set_goal`: a new goal replaces any other and is active; when no
 * turn runs the first turn toward it starts now, else after the running one. `check` is a shell
 * command run in the guest (repository as working directory) when the model declares the goal met:
 * the goal is met only if it exits 0. `pause_goal` / `resume_goal` (resume starts a turn when none
 * runs; also from `needs_confirmation`: keep working) / `confirm_goal` (a `needs_confirmation` goal
 * becomes met: the user accepts the changed check) / `clear_goal` / `set_goal_budget` (either budget;
 * `tokenBudget: null` removes it). Refused
 * with `invalid_input` when there is no goal, or it cannot move that way (e.g. resuming a met goal).
 */
export const GOAL_OPERATIONS = [
  z.object({
    type: z.literal('set_goal'),
    text: z.string().trim().min(1).max(20_000),
    turnBudget: TurnBudgetSchema.optional(),
    tokenBudget: TokenBudgetSchema.optional(),
    check: z.string().trim().min(1).max(10_000).optional()
  }),
  z.object({ type: z.literal('pause_goal') }),
  z.object({ type: z.literal('resume_goal') }),
  z.object({ type: z.literal('confirm_goal') }),
  z.object({ type: z.literal('clear_goal') }),
  z.object({ type: z.literal('set_goal_budget'), turnBudget: TurnBudgetSchema.optional(), tokenBudget: TokenBudgetSchema.nullable().optional() })
] as const

/** The goal's text and bounds as set by the user. */
export const GoalSchema = z.object({
  text: z.string(),
  /** Shell command that must exit 0 in the guest for the goal to be met; absent: the model's word suffices. */
  check: z.string().optional(),
  /**
   * The files the check command names, as they were when the goal was set: path relative to the
   * repository → `sha256:HEX` / `link:TARGET` / `absent` (src/main/session/goal-check-files.ts). A
   * passing check with any of them changed leaves the goal `needs_confirmation`.
   */
  checkFiles: z.record(z.string(), z.string()).optional()
})
/** See {@link GoalSchema}. */
export type Goal = z.infer<typeof GoalSchema>

/** The goal's snapshot after any change (persisted: the last one is the goal's state in the log). */
export const GoalUpdatedSchema = z.object({
  type: z.literal('goal_updated'),
  goal: GoalSchema,
  state: GoalStateSchema,
  /** Turns run toward this goal so far (a turn counts when it ends). */
  turnsUsed: z.number().int().nonnegative(),
  turnBudget: z.number().int().positive(),
  /** Input (cached included) + output tokens of the goal's turns, from their `usage` events. */
  tokensUsed: z.number().int().nonnegative(),
  /** null: no token budget. */
  tokenBudget: z.number().int().positive().nullable(),
  /** Why it moved, for people: the evidence, the blocker, "stopped by the user", "session resumed", … */
  reason: z.string().optional()
})
/** See {@link GoalUpdatedSchema}. */
export type GoalUpdated = z.infer<typeof GoalUpdatedSchema>

/** `goal_updated`: see {@link GoalUpdatedSchema}. */
export const GOAL_EVENTS = [GoalUpdatedSchema] as const

/**
 * The short progress label every surface shows: `Goal · 2/8`, with the state when not active
 * (`Goal · 2/8 · paused`). `null` when there is no goal or it was cleared.
 */
export function goalLabel(g: Pick<GoalUpdated, 'state' | 'turnsUsed' | 'turnBudget'> | null | undefined): string | null {
  if (!g || g.state === 'cleared') return null
  const base = `Goal · ${g.turnsUsed}/${g.turnBudget}`
  return g.state === 'active' ? base : `${base} · ${g.state.replace('_', ' ')}`
}
