/**
 * What each operation does to a session: one table, by operation type. The handlers act through
 * {@link OperationTarget}, the narrow face the session shows them; approvals, proposals and the goal
 * keep their own state machines (session-approvals.ts, harness/mode-locks.ts, session-goal.ts).
 */
import { CortexError } from '../../shared/errors'
import type { Operation } from '../../shared/events'
import type { ImageInput } from '../../shared/images'
import type { Mode } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { ThinkingLevel } from '../../shared/thinking'
import type { ProposalOperation } from '../harness/mode-locks'

/** What an operation handler may do to the session. */
export interface OperationTarget {
  /** Whether a turn is running. */
  isRunning(): boolean
  /** A message (its images checked and stored first): starts a turn (with what was queued first), or during one is queued. */
  message(text: string, images?: ImageInput[]): void | Promise<void>
  /** Drop a queued message; `invalid_input` once delivered. */
  removeQueued(queueId: string): void
  /** Stop: the turn, a mode switch's wait, a guest start; pauses an active goal. */
  stop(): void
  /** Switch mode; resolves once `mode_changed` is emitted (mode-switch.ts). */
  setMode(mode: Mode): void | Promise<void>
  /** Start a compaction turn ('' for no focus). */
  compact(focus: string): void
  /** Whether the session was opened with compaction settings. */
  canCompact(): boolean
  /** The sandbox policy in force, and a switch to another (the guest restarts). */
  getSandbox(): SandboxPolicy
  switchSandbox(policy: SandboxPolicy): void
  /** Accept or reject the plan or spec awaiting a decision, and start the next turn. */
  decide(op: ProposalOperation): void
  /** The approval gate's operations (approval_decision, set_approval_policy; session-approvals.ts). */
  approvalOperation(op: Operation): void
  /** Point the next turns at another model of the same provider (model_changed); refused by the handler during a turn. */
  setModel(modelId: string): Promise<void>
  /** Enable or keep off the repository's extensions the card showed (op trust_extensions; extensions/index.ts). */
  trustExtensions(items: ReadonlyArray<{ key: string; hash: string }>, enable: boolean): Promise<void>
  /** Answer an MCP server's question card (op mcp_elicitation_answer; extensions/mcp/elicitation-desk.ts). */
  answerElicitation(op: Extract<Operation, { type: 'mcp_elicitation_answer' }>): void
  /** The goal's operations (set_goal, pause_goal, resume_goal, confirm_goal, clear_goal, set_goal_budget; session-goal.ts). */
  goalOperation(op: Operation): void
  /** The thinking level from the next turn on; `invalid_input` for a model that cannot think (providers/thinking.ts). */
  setThinking(level: ThinkingLevel): void
}

type Handler<T extends Operation['type']> = (s: OperationTarget, op: Extract<Operation, { type: T }>) => void | Promise<void>

const busy = (what: string): CortexError => new CortexError('busy', `${what}: press Stop (Esc) first or wait`)

/** Every operation type and what it does. */
export const OPERATIONS: { [T in Operation['type']]: Handler<T> } = {
  user_message: (s, op) => s.message(op.text, op.images),
  remove_queued: (s, op) => s.removeQueued(op.queueId),
  stop: (s) => s.stop(),
  set_mode: (s, op) => s.setMode(op.mode),
  accept_plan: (s, op) => s.decide(op),
  reject_plan: (s, op) => s.decide(op),
  accept_spec: (s, op) => s.decide(op),
  reject_spec: (s, op) => s.decide(op),
  set_sandbox: (s, op) => {
    if (s.isRunning()) throw busy('the sandbox policy cannot change while a turn runs')
    if (op.policy !== s.getSandbox()) s.switchSandbox(op.policy)
  },
  approval_decision: (s, op) => s.approvalOperation(op),
  set_approval_policy: (s, op) => s.approvalOperation(op),
  compact: (s, op) => {
    if (s.isRunning()) throw busy('compact waits for the running turn to end')
    if (!s.canCompact()) throw new CortexError('invalid_input', 'this session was opened without compaction settings')
    s.compact(op.focus ?? '')
  },
  set_goal: (s, op) => s.goalOperation(op),
  pause_goal: (s, op) => s.goalOperation(op),
  resume_goal: (s, op) => s.goalOperation(op),
  confirm_goal: (s, op) => s.goalOperation(op),
  clear_goal: (s, op) => s.goalOperation(op),
  set_goal_budget: (s, op) => s.goalOperation(op),
  set_thinking: (s, op) => s.setThinking(op.level),
  trust_extensions: (s, op) => s.trustExtensions(op.items, op.enable),
  mcp_elicitation_answer: (s, op) => s.answerElicitation(op),
  set_model: (s, op) => {
    if (s.isRunning()) throw busy('the model cannot change while a turn runs; it applies from the next message')
    return s.setModel(op.model)
  }
}

/** Apply `op` to `target` through {@link OPERATIONS}. */
export function applyOperation(target: OperationTarget, op: Operation): void | Promise<void> {
  return (OPERATIONS[op.type] as Handler<typeof op.type>)(target, op)
}
