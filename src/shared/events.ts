/**
 * Session operations (in) and session events (out): the queue pair every adapter (Electron IPC,
 * CLI, web host) speaks. Each is a zod schema; the TypeScript types are inferred from them.
 */
import { EXTENSION_EVENTS, EXTENSION_OPERATIONS } from './extensions'
import { z } from 'zod'
import { ApprovalDecisionSchema, ApprovalOutcomeSchema, ApprovalPolicySchema, ApprovalRuleSchema, EscalationSchema } from './approvals'
import { CHECKPOINT_EVENTS } from './checkpoints'
import { COMPACTION_EVENTS, COMPACTION_OPERATIONS } from './compaction'
import { ErrorCodeSchema } from './errors'
import { ImageInputsSchema, ImageRefSchema } from './images'
import { GOAL_EVENTS, GOAL_OPERATIONS } from './goal'
import { MCP_EVENTS } from './mcp'
import { ELICITATION_EVENTS, ELICITATION_OPERATIONS } from './mcp-elicitation'
import { ModeSchema } from './modes'
import { PROPOSAL_EVENTS, PROPOSAL_OPERATIONS } from './proposals'
import { SandboxPolicySchema } from './sandbox'
import { FileDiffSchema } from './file-diff'
import { HOOK_EVENTS } from './hooks'
import { SHELL_EVENTS, SHELL_EVENT_TYPES } from './shell'
import { ModelRecordShape, SESSION_NOTICE_EVENTS } from './session-notices'
import { MODEL_EVENTS, MODEL_OPERATIONS } from './model-choice'
import { TurnUsageSchema, USAGE_EVENTS } from './usage'
import { REASONING_EPHEMERAL_TYPES, ReasoningBlockSchema, THINKING_EVENTS, THINKING_OPERATIONS } from './thinking'
import { CommandUseSchema, EXTENSION_NOTICE_EVENTS } from './custom-commands'
import { NESTED_SHAPE } from './subagents'

/** A todo item kept by the session (todo_read / todo_write). */
export const TodoSchema = z.object({
  content: z.string().min(1),
  status: z.enum(['pending', 'in_progress', 'completed'])
})
/** See {@link TodoSchema}. */
export type Todo = z.infer<typeof TodoSchema>

/** A plan written by the plan tool: a title, a summary, ordered steps and a mermaid diagram. */
export const PlanSchema = z.object({
  title: z.string().min(1),
  summary: z.string(),
  steps: z.array(z.string().min(1)).min(1),
  mermaid: z.string().min(1)
})
/** See {@link PlanSchema}. */
export type Plan = z.infer<typeof PlanSchema>

/**
 * Longest user message in characters (1 Mi, ~250k tokens: more than any model's context). A longer
 * one is refused with `invalid_input` naming this limit; put such text in a file in the repository.
 */
export const MAX_USER_MESSAGE_CHARS = 1024 * 1024

/** Operations a caller submits to a session. */
export const OperationSchema = z.discriminatedUnion('type', [
  /**
   * Starts a turn; during a turn it is queued (`message_queued`) and delivered at the next step
   * boundary. `images` (./images): base64 bytes or a stored image's hash, checked (type by magic
   * bytes, bytes and pixel caps) and stored once in the session's folder; `text` may then be empty.
   */
  z.object({
    type: z.literal('user_message'),
    text: z
      .string()
      .max(MAX_USER_MESSAGE_CHARS, `a message may have at most ${MAX_USER_MESSAGE_CHARS} characters; put longer text in a file in the repository and refer to it`),
    images: ImageInputsSchema.optional()
  }).refine((op) => op.text.length > 0 || (op.images?.length ?? 0) > 0, { message: 'a message needs text or an image', path: ['text'] }),
  /** Remove a queued message before it is delivered (`queued_removed`); `invalid_input` when it is no longer queued. */
  z.object({ type: z.literal('remove_queued'), queueId: z.string().min(1) }),
  /** mcp_elicitation_answer: answer an MCP server's question card (./mcp-elicitation). */
  ...ELICITATION_OPERATIONS,
  z.object({ type: z.literal('stop') }),
  z.object({ type: z.literal('set_mode'), mode: ModeSchema }),
  /** accept_plan, reject_plan, accept_spec, reject_spec (./proposals). */
  ...PROPOSAL_OPERATIONS,
  /** Switch the sandbox policy: the guest restarts with the new mounts and network; rejected while a turn runs. */
  z.object({ type: z.literal('set_sandbox'), policy: SandboxPolicySchema }),
  /**
   * Answer approval request `requestId` (and only it: the decision binds that call's exact arguments).
   * `allow_always` stores `rule` (for bash a command prefix such as `npm test *`, which must cover
   * this call's command; default the suggested rule) for this repository; `deny` with `rule` stores a
   * deny rule. `reason` goes back to the model with a denial.
   */
  z.object({
    type: z.literal('approval_decision'),
    requestId: z.string().min(1),
    decision: ApprovalDecisionSchema,
    reason: z.string().max(2000).optional(),
    rule: z.string().min(1).max(2000).optional()
  }),
  /** Change the session's approval policy (never | commands | changes); applies from the next tool call. */
  z.object({ type: z.literal('set_approval_policy'), policy: ApprovalPolicySchema }),
  /** compact { focus? }: compact the history now (./compaction). */
  ...COMPACTION_OPERATIONS,
  /** set_goal, pause_goal, resume_goal, confirm_goal, clear_goal, set_goal_budget (./goal). */
  ...GOAL_OPERATIONS,
  /** set_thinking { level }: off | low | medium | high from the next turn (./thinking). */
  ...THINKING_OPERATIONS,
  /** set_model (./model-choice). */
  ...MODEL_OPERATIONS,
  /** trust_extensions (./extensions). */
  ...EXTENSION_OPERATIONS
])
/** See {@link OperationSchema}. */
export type Operation = z.infer<typeof OperationSchema>

/** Guest lifecycle states shown to the user. */
export const GuestStateSchema = z.enum(['building_image', 'starting', 'ready', 'stopped', 'error'])

/** A tool call as the model made it: `args` is the parsed JSON input (or the raw text if unparseable). */
export const ToolCallSchema = z.object({
  callId: z.string(),
  name: z.string(),
  args: z.unknown()
})
/** See {@link ToolCallSchema}. */
export type ToolCall = z.infer<typeof ToolCallSchema>

/** Why a turn ended. `completed`: the model stopped calling tools; `stopped`: the user pressed Stop. */
export const TurnEndReasonSchema = z.enum(['completed', 'stopped', 'error'])

/**
 * Events a session emits, in order. Events marked ephemeral in {@link EPHEMERAL_EVENTS} are not persisted.
 * The events a turn emits may carry `parentCallId` (./subagents): they belong to the child turn the
 * `task` call of that id started, not to the parent's history.
 */
export const SessionEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('session_opened'), repo: z.string(), mode: ModeSchema, sandbox: SandboxPolicySchema.optional(),
    approvalPolicy: ApprovalPolicySchema.optional(),
    /** provider, model, baseUrl: the model connection (never a key), so a rebuilt meta.json keeps it. */
    ...ModelRecordShape
  }),
  /** session_resumed, instructions_loaded (./session-notices). */
  ...SESSION_NOTICE_EVENTS,
  /** model_changed (./model-choice). */
  ...MODEL_EVENTS,
  /** usage: tokens and cost of one model request (./usage). */
  ...USAGE_EVENTS,
  /** thinking_changed, reasoning_delta (ephemeral), reasoning_done (./thinking). */
  ...THINKING_EVENTS,
  /** extensions_untrusted (./extensions). */
  ...EXTENSION_EVENTS,
  /** compaction_started, compaction_finished, compaction_failed, context_usage (./compaction). */
  ...COMPACTION_EVENTS,
  /** mcp_schemas: what the MCP tools' schemas cost and what deferral saved; mcp_schemas_loaded: what the model loaded (./mcp). */
  ...MCP_EVENTS,
  /** mcp_elicitation_requested, mcp_elicitation_resolved: an MCP server's question card (./mcp-elicitation). */
  ...ELICITATION_EVENTS,
  /**
   * A user message as the model gets it; `queueId` when it was typed during a turn and queued first;
   * `command` when it was a custom command the session expanded (./custom-commands): `text` is then
   * the expansion, and the user typed `/name args`.
   */
  z.object({ type: z.literal('user_message'), turnId: z.string(), text: z.string(), queueId: z.string().optional(), images: z.array(ImageRefSchema).optional(), command: CommandUseSchema.optional(), ...NESTED_SHAPE }),
  /** A message sent during a turn, held until the next step boundary (src/main/session/message-queue.ts); `command` as in user_message. */
  z.object({ type: z.literal('message_queued'), queueId: z.string(), text: z.string(), images: z.array(ImageRefSchema).optional(), command: CommandUseSchema.optional() }),
  /** extension_notice: collisions and problems of custom commands and skills (./custom-commands). */
  ...EXTENSION_NOTICE_EVENTS,
  /**
   * A queued message removed before delivery: by `remove_queued`, or by Stop (`stopped`), which
   * hands every queued message back with its `text` for the front end to put into its composer.
   */
  z.object({ type: z.literal('queued_removed'), queueId: z.string(), stopped: z.literal(true).optional(), text: z.string().optional() }),
  /**
   * Ephemeral: no part of the model's answer has arrived for `waitedMs` (ms); repeated about every
   * second while the wait lasts, and once with `waitedMs: 0` when the stream moves again.
   */
  z.object({ type: z.literal('model_waiting'), turnId: z.string(), waitedMs: z.number().nonnegative(), ...NESTED_SHAPE }),
  /**
   * Ephemeral: the model request failed with `reason` and is sent again after `delayMs` (ms) as
   * attempt `attempt` (2 = first retry); text streamed by the failed attempt is discarded.
   */
  z.object({ type: z.literal('model_retrying'), turnId: z.string(), attempt: z.number().int(), delayMs: z.number().nonnegative(), reason: z.string(), ...NESTED_SHAPE }),
  z.object({ type: z.literal('turn_started'), turnId: z.string(), mode: ModeSchema }),
  z.object({ type: z.literal('text_delta'), turnId: z.string(), text: z.string(), ...NESTED_SHAPE }),
  z.object({
    type: z.literal('assistant_message'),
    turnId: z.string(),
    text: z.string(),
    toolCalls: z.array(ToolCallSchema),
    /** The step's reasoning blocks with their provider metadata (signatures, encrypted items), sent back before the text and calls (./thinking). */
    reasoning: z.array(ReasoningBlockSchema).optional(),
    ...NESTED_SHAPE
  }),
  z.object({
    type: z.literal('tool_call_started'),
    turnId: z.string(),
    callId: z.string(),
    name: z.string(),
    args: z.unknown(),
    ...NESTED_SHAPE
  }),
  z.object({
    type: z.literal('tool_output'),
    /** The turn whose tool call streams this output. */
    turnId: z.string(),
    callId: z.string(),
    stream: z.enum(['stdout', 'stderr']),
    chunk: z.string(),
    ...NESTED_SHAPE
  }),
  z.object({
    type: z.literal('tool_call_finished'),
    turnId: z.string(),
    callId: z.string(),
    name: z.string(),
    isError: z.boolean(),
    /** The text sent back to the model as the tool result (bounded). */
    result: z.string(),
    /**
     * The call's streamed output (stdout and stderr interleaved as they arrived), kept with the
     * session so a reload or resume shows it again: the first and last KEPT_OUTPUT_EDGE_CHARS
     * characters with a marker between (the full output stays in the guest's spill file). Absent
     * when the call streamed nothing. A stopped call carries its partial output here too.
     */
    output: z.string().optional(),
    /** The real change of a file tool (edit_file, write_file): the file's diff before → after, with its line numbers (./file-diff). */
    diff: FileDiffSchema.optional(),
    /** An image the tool returned (read_file of a PNG, JPEG, GIF or WebP), sent to a vision-capable model with the result. */
    image: ImageRefSchema.optional(),
    ...NESTED_SHAPE
  }),
  z.object({ type: z.literal('plan_updated'), plan: PlanSchema }),
  z.object({ type: z.literal('todos_updated'), todos: z.array(TodoSchema) }),
  /**
   * The mode in force changed. A switch from a mode with bash to one without (Agent → Ask, Plan,
   * Spec) first ends what the model's commands left running in the guest (ADR 0019): how many
   * (`endedProcesses`, absent when none), and why not all could be (`endError`).
   */
  z.object({
    type: z.literal('mode_changed'),
    mode: ModeSchema,
    endedProcesses: z.number().int().nonnegative().optional(),
    endError: z.string().optional()
  }),
  /** lock_changed, spec_updated, proposal_decided (./proposals). */
  ...PROPOSAL_EVENTS,
  /** goal_updated: the goal's state and progress after any change (./goal). */
  ...GOAL_EVENTS,
  z.object({ type: z.literal('sandbox_changed'), policy: SandboxPolicySchema }),
  /**
   * A tool call waits for the user (src/main/harness/approvals): the exact call, why it asks
   * (`reason`: the model's justification of an escalation, or the policy), the sandbox escalation it
   * needs, and the rule an Always would store (`suggestedRule`, absent for escalations).
   */
  z.object({
    type: z.literal('approval_requested'),
    turnId: z.string(),
    requestId: z.string(),
    callId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    reason: z.string().optional(),
    escalation: EscalationSchema.optional(),
    suggestedRule: z.string().optional()
  }),
  /**
   * An approval request ended: by the user's `decision`, by a stored rule (`ruleId` and `rule`, emitted
   * without a request), `cancelled` by Stop, or `withdrawn` (with `reason`) by a switch to a mode that
   * withholds the call's tool: front ends take the card or prompt away. With a `requestId`, `rule` is
   * the rule an Always or a deny-with-rule stored.
   */
  z.object({
    type: z.literal('approval_resolved'),
    turnId: z.string(),
    requestId: z.string().optional(),
    callId: z.string(),
    outcome: ApprovalOutcomeSchema,
    decision: ApprovalDecisionSchema.optional(),
    reason: z.string().optional(),
    ruleId: z.string().optional(),
    rule: ApprovalRuleSchema.optional()
  }),
  z.object({ type: z.literal('approval_policy_changed'), policy: ApprovalPolicySchema }),
  z.object({ type: z.literal('guest_status'), state: GuestStateSchema, detail: z.string().optional() }),
  /** `usage`: the turn's token and cost totals (absent when it made no model request). */
  z.object({ type: z.literal('turn_ended'), turnId: z.string(), reason: TurnEndReasonSchema, usage: TurnUsageSchema.optional() }),
  /** turn_changes, changes_reverted, checkpoint_failed (./checkpoints). */
  ...CHECKPOINT_EVENTS,
  /** shell_output, shell_exited (./shell; ephemeral). */
  ...SHELL_EVENTS,
  /** hook_started, hook_finished, hooks_notice (./hooks). */
  ...HOOK_EVENTS,
  /**
   * Something the host may run without asking changed, or the repository itself is risky: `paths`
   * (repository-relative, or absolute for the repository) and a message for the user. Emitted at a
   * turn's end for changes to files such as `.envrc`, `.vscode/`, `package.json` scripts, a nested
   * `.git` (src/main/harness/host-exec-watch.ts), and at open for a root-owned repository.
   */
  z.object({ type: z.literal('host_exec_warning'), turnId: z.string().optional(), paths: z.array(z.string()), message: z.string() }),
  z.object({
    type: z.literal('error'),
    turnId: z.string().optional(),
    code: ErrorCodeSchema,
    message: z.string()
  })
])
/** See {@link SessionEventSchema}. */
export type SessionEvent = z.infer<typeof SessionEventSchema>

/** Event types that stream to subscribers but are not written to the session log. */
export const EPHEMERAL_EVENTS: ReadonlySet<SessionEvent['type']> = new Set(['text_delta', 'tool_output', 'model_waiting', 'model_retrying', ...REASONING_EPHEMERAL_TYPES, ...SHELL_EVENT_TYPES])

/** An event as delivered: which session, its sequence number in that session (from 1) and time (ms since epoch). */
export const EventEnvelopeSchema = z.object({
  sessionId: z.string(),
  seq: z.number().int().nonnegative(),
  time: z.number(),
  event: SessionEventSchema
})
/** See {@link EventEnvelopeSchema}. */
export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>
