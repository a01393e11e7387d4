/**
 * Mode table and locks: which tools each mode offers the model, and the one pure function
 * ({@link offeredTools}) the harness uses both to offer tools and to refuse withheld calls at
 * execution time. Pure data, shared by the harness and the renderer (mode picker, lock banner).
 */
import { z } from 'zod'
import { MODES } from './enum-values'

/** The names of every tool in the catalog, in the order they are offered. */
export const TOOL_NAMES = [
  'read_file',
  'glob',
  'grep',
  'write_file',
  'edit_file',
  'bash',
  'todo_read',
  'todo_write',
  'plan',
  'spec',
  'goal_done'
] as const

/** One tool name from {@link TOOL_NAMES}. */
export type ToolName = (typeof TOOL_NAMES)[number]

/**
 * Schema of a mode: `ask` (read-only look-around), `plan` (ask + plan tool), `spec` (ask + spec
 * tool: requirements → design → tasks), `agent` (everything but spec).
 */
export const ModeSchema = z.enum(MODES)

/** A session mode; decides the tools offered to the model and allowed at execution time. */
export type Mode = z.infer<typeof ModeSchema>

/** The documents of a spec, in the order they are drafted and accepted. */
export const SpecStageSchema = z.enum(['requirements', 'design', 'tasks'])
/** See {@link SpecStageSchema}. */
export type SpecStage = z.infer<typeof SpecStageSchema>

/**
 * A proposal awaiting the user's decision: a plan (after the plan tool ran in Plan mode) or one spec
 * document (after the spec tool drafted it). While a lock is set no mutating tool is offered or run,
 * whatever the mode; it is released by accepting, rejecting with feedback, or switching mode.
 */
export const ModeLockSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('plan') }),
  z.object({ kind: z.literal('spec'), stage: SpecStageSchema })
])
/** See {@link ModeLockSchema}; `null` is "no lock". */
export type ModeLock = z.infer<typeof ModeLockSchema>

const ASK_TOOLS: readonly ToolName[] = ['read_file', 'glob', 'grep']

/** Tools that change files or run commands: never offered in Ask, Plan or Spec, nor under a lock. */
export const MUTATING_TOOLS: readonly ToolName[] = ['write_file', 'edit_file', 'bash', 'todo_write']

/** Tools offered per mode without a lock. A tool absent here is never offered and is refused if called anyway. */
export const MODE_TOOLS: Readonly<Record<Mode, readonly ToolName[]>> = {
  ask: ASK_TOOLS,
  plan: [...ASK_TOOLS, 'plan'],
  spec: [...ASK_TOOLS, 'spec'],
  // spec drives Spec mode's accept/reject flow, so Agent offers everything else (goal_done follows the goal)
  agent: TOOL_NAMES.filter((t) => t !== 'spec' && t !== 'goal_done')
}

/**
 * A tool beyond the built-in catalog (an MCP tool, `task`, `skill`, `tool_search`; src/main/extensions):
 * its name and whether it only reads. `readOnly` is decided by the user's own config or by Cortex,
 * never by what a server or a repository claims.
 */
export interface ExtraTool {
  name: string
  /** True: offered in every mode, even under a lock. False: Agent mode only, and never under a lock. */
  readOnly: boolean
}

/**
 * The tools offered (and allowed to run) now.
 * @param mode the mode in force
 * @param lock the pending proposal, or null/undefined when none awaits a decision
 * @param goalActive a goal is active (shared/goal.ts): `goal_done` is offered, in any mode
 * @param extras tools beyond the catalog ({@link ExtraTool}); a name that shadows a built-in is ignored
 * @returns tool names, built-ins in catalog order then extras in the given order; under a lock,
 *   {@link MUTATING_TOOLS} and every extra that is not read-only are removed
 */
export function offeredTools(mode: Mode, lock?: ModeLock | null, goalActive = false, extras: readonly ExtraTool[] = []): readonly string[] {
  const tools = MODE_TOOLS[mode]
  const unlocked = lock ? tools.filter((t) => !MUTATING_TOOLS.includes(t)) : tools
  const builtIns: readonly string[] = goalActive ? [...unlocked, 'goal_done'] : unlocked
  if (extras.length === 0) return builtIns
  const writable = mode === 'agent' && !lock
  const more = extras.filter((t) => (t.readOnly || writable) && !(TOOL_NAMES as readonly string[]).includes(t.name)).map((t) => t.name)
  return [...builtIns, ...more]
}

/**
 * Whether `tool` may run now.
 * @param mode the mode in force when the call runs (not when it was requested)
 * @param tool any string; unknown tool names are never allowed
 * @param lock the lock in force when the call runs
 * @param goalActive a goal is active when the call runs
 * @param extras the tools beyond the catalog in force when the call runs ({@link offeredTools})
 */
export function isToolAllowed(mode: Mode, tool: string, lock?: ModeLock | null, goalActive = false, extras: readonly ExtraTool[] = []): boolean {
  return offeredTools(mode, lock, goalActive, extras).includes(tool)
}

/** What the user sees of a lock, e.g. "Plan — locked until you accept". */
export function lockLabel(lock: ModeLock): string {
  return lock.kind === 'plan' ? 'Plan — locked until you accept' : `Spec ${lock.stage} — locked until you accept`
}

/**
 * One line about the processes a mode switch ended (`mode_changed`'s `endedProcesses` and
 * `endError`, ADR 0019), e.g. "ended 2 background processes"; '' when there is nothing to say.
 * The same words in the CLI, the interactive CLI and the timeline.
 */
export function endedProcessesNote(e: { endedProcesses?: number; endError?: string }): string {
  const n = e.endedProcesses ?? 0
  const ended = n > 0 ? `ended ${n} background process${n === 1 ? '' : 'es'}` : ''
  return [ended, e.endError ?? ''].filter(Boolean).join('; ')
}
