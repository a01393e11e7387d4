/**
 * The tool definition shape shared by every tool file, and the context a tool runs with.
 * One tool per file in this folder; the catalog is assembled in catalog.ts.
 */
import type { FileDiff } from '../../shared/file-diff'
import type { z } from 'zod'
import type { Plan, Todo } from '../../shared/events'
import type { SpecStage } from '../../shared/modes'
import type { SpecDocument } from '../../shared/proposals'
import type { Goal } from '../../shared/goal'
import type { Guest } from '../guest/guest'

/** Session state a tool may read or replace (todos and plan live in the session, not the transcript). */
export interface ToolSessionState {
  getTodos(): Todo[]
  /** Replace the whole list; emits todos_updated. */
  setTodos(todos: Todo[]): void
  /** Publish a validated plan; emits plan_updated (and, in Plan mode, locks until the user decides). */
  setPlan(plan: Plan): void
  /**
   * The spec in progress (Spec mode); absent where there is no session (tests of other tools).
   * `nextStage()` is the stage to draft now (the one awaiting a decision, or the first not yet
   * accepted); `propose(doc)` publishes a draft of that stage: emits spec_updated and locks.
   */
  spec?: { nextStage(): SpecStage; propose(doc: SpecDocument): void }
  /** The active goal (goal_done; harness/goal.ts); absent where there is no session or no active goal. */
  goal?: GoalToolState
}

/** What goal_done sees of the session's goal: the goal, and where it records the model's claim for the turn's end. */
export interface GoalToolState {
  /** The active goal, or null when none is active (the call is then refused). */
  current(): Goal | null
  /**
   * The goal is met (evidence given and the check, if any, passed): decided when the turn ends. With
   * `changed` files the check names (non-empty), it is not met but needs the user's confirmation.
   */
  met(evidence: string, changed?: string[]): void
  /** The files the check names that changed since the goal was set (empty: none; absent: not tracked). */
  changedCheckFiles?(): string[]
  /** The model reports a blocker; returns how many consecutive turns (this one included) reported it. */
  blocked(reason: string): number
  /**
   * Whether commands may run now (the mode and lock in force offer bash): the check command runs
   * only then, since it runs code the model may have written. Absent: allowed (tests of the tool).
   */
  commandsAllowed?(): boolean
}

/** What a tool runs with. `signal` aborts on Stop; tools must pass it to every guest call. */
export interface ToolContext {
  guest: Guest
  signal: AbortSignal
  session: ToolSessionState
  /** Stream live output (bash) to the UI as tool_output events. */
  emitOutput(stream: 'stdout' | 'stderr', chunk: string): void
  /**
   * Call right before the tool's side effect (a spawn, a write), after its own round trips to the
   * guest: throws ToolError when a mode switch since the call's dispatch withholds the tool (ADR 0019).
   * Absent: nothing to check.
   */
  beforeSideEffect?(): void
}

/**
 * A tool's result. `output` is the text the model receives; `isError` marks a model-fixable failure;
 * `diff` is the real change a file tool made, for the front ends only (never sent to the model).
 * `image` (read_file of an image) is stored by the harness and sent with the text to a
 * vision-capable model (a note otherwise).
 */
export interface ToolResult {
  output: string
  isError?: boolean
  diff?: FileDiff
  image?: { bytes: Uint8Array; name: string }
}

/**
 * A model-fixable failure (bad path, no match, …). Thrown from `execute`; the harness turns it into
 * an error tool result and the loop goes on. Anything else thrown ends the turn as an infrastructure error.
 */
export class ToolError extends Error {
  /** @param message the text the model sees */
  constructor(message: string) {
    super(message)
    this.name = 'ToolError'
  }
}

/**
 * What the harness gives a call: the {@link ToolContext} minus the guest, which it fetches with
 * `getGuest` only for a tool that needs one ({@link ToolDefinition.needsGuest}).
 */
export type ToolRunContext = Omit<ToolContext, 'guest'> & {
  /** The session's guest, attached (and awaited) on first use; rejects with CortexError when it cannot start. */
  getGuest(): Promise<Guest>
  /**
   * The approval gate, asked once the call is known to be valid and before any guest is touched
   * (src/main/harness/approvals): refuse it with `output` for the model, or run it, in the one-off
   * guest `getGuest` gives when set (`release` removes it after the call). Rejects with an AbortError on Stop.
   */
  approve?(call: { callId: string; name: string; args: unknown }, hook?: 'allow' | 'ask'): Promise<
    { run: true; getGuest?: () => Promise<Guest>; release?: () => Promise<void> } | { run: false; output: string; withdrawn?: true }
  >
  /**
   * PreToolUse hooks (src/main/extensions/hooks), asked for a valid call the mode allows, before its
   * approval: `block` is the call's result for the model (it is not run); `permission` goes to
   * `approve` (a hook's allow or ask). Absent: no hooks. Never rejects but with an AbortError on Stop.
   */
  preToolUse?(call: { callId: string; name: string; args: unknown }): Promise<{ block?: string; permission?: 'allow' | 'ask' }>
  /**
   * Asked after each wait of a dispatched call (its approval; the guest's start and the turn-start
   * snapshot behind `getGuest`), last right before the tool runs: the refusal for the model when
   * the user switched to a mode that withholds the tool meanwhile (harness/mode-watch.ts; the
   * result's text less its `Error: ` prefix), else undefined.
   * @param waited what the call waited for, as the model reads it ("its approval")
   */
  stillAllowed?(waited: string): string | undefined
}

/** One tool: its name, model-facing description, zod input schema and execution. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  /** A {@link ToolName} for the built-in catalog; any /^[a-zA-Z0-9_-]{1,64}$/ name for an extension's tool. */
  name: string
  description: string
  /** Validates the arguments before the call runs (for an MCP tool, a permissive object: the server validates). */
  inputSchema: S
  /**
   * The JSON Schema the model is sent instead of the one derived from `inputSchema` (an MCP tool's
   * own `inputSchema`); absent: derived from zod.
   */
  jsonSchema?: Record<string, unknown>
  /**
   * For tools beyond the catalog only (src/main/extensions): true offers the tool in every mode and
   * under a lock; false or absent, in Agent mode only (shared/modes.ts offeredTools). Decided by
   * Cortex or the user's own config, never by a server's or a repository's claim.
   */
  readOnly?: boolean
  /**
   * The tool may run but its schema is not sent with requests (MCP schema deferral): the model
   * finds and loads it through a search tool first. Absent: sent.
   */
  deferred?: boolean
  /**
   * Whether the tool runs in the guest (default true). False for tools that work on session state
   * only (todos, plan): the harness neither starts nor waits for a guest for them, and their
   * context's `guest` throws if touched.
   */
  needsGuest?: boolean
  execute(input: z.infer<S>, ctx: ToolContext): Promise<ToolResult>
}

/** Helper that keeps the input type of a tool definition. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def
}
