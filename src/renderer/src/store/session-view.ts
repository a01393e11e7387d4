/**
 * The per-session view the reducer (./reduce-event.ts) builds: its timeline row types, its fields and
 * an empty view. Types and a constructor only; no React, no I/O.
 */
import type { FileDiff } from '../../../shared/file-diff'
import type { Mode, ModeLock } from '../../../shared/modes'
import type { ImageRef } from '../../../shared/images'
import type { SpecDocument } from '../../../shared/proposals'
import type { SandboxPolicy } from '../../../shared/sandbox'
import type { Plan, Todo } from '../../../shared/events'
import type { ApprovalPolicy } from '../../../shared/approvals'
import type { GoalUpdated } from '../../../shared/goal'
import type { ApprovalRow } from '../features/approvals/approvals-view'
import type { TurnUsage } from '../../../shared/usage'
import type { CompactionFields } from './compaction-events'
import { TerminalLog } from '../features/terminal/terminal-log'
import { EMPTY_QUEUE_FIELDS, type QueueFields } from './queue-events'
import type { ReasoningFields, ReasoningRow } from './reasoning-events'
import type { ElicitationRow } from './elicitation-events'
import type { HookRow } from './hook-events'
import type { TrustItem } from '../../../shared/extensions'

/** One row of the timeline. `id` is unique within a session and stable across re-renders. */
export type TimelineItem =
  /** `images`: attached to the message, stored in the session's folder (shown as thumbnails). */
  | { kind: 'user'; id: string; text: string; images?: ImageRef[]; /** The custom command typed (`/review a.ts`): `text` is its expansion, shown collapsed. */ command?: string; commandFile?: string }
  /** `done`: a streamed message whose step ended (its text is final: shown without the render throttle). */
  | { kind: 'assistant'; id: string; turnId: string; text: string; done?: boolean }
  | {
      kind: 'tool'
      id: string
      turnId: string
      callId: string
      name: string
      args: unknown
      status: 'running' | 'ok' | 'error'
      /** Streamed stdout/stderr (bash and other process tools), bounded. */
      output: string
      /** The text returned to the model, once finished. */
      result?: string
      /** A file tool's real change (edit_file, write_file), once finished. */
      diff?: FileDiff
      /** An image the tool returned (read_file of a PNG, JPEG, GIF or WebP). */
      image?: ImageRef
      /** A `task` call's subagent calls, as rows of their own (./nested-events.ts). */
      children?: Array<Extract<TimelineItem, { kind: 'tool' }>>
    }
  | { kind: 'guest'; id: string; state: string; detail?: string }
  | { kind: 'error'; id: string; code: string; message: string }
  | { kind: 'turn_end'; id: string; turnId: string; reason: 'completed' | 'stopped' | 'error'; usage?: TurnUsage; durationMs?: number }
  /** A session notice (resumed, instructions loaded); `warn` when something was lost or cut. */
  | { kind: 'notice'; id: string; text: string; warn: boolean }
  /** `note`: what the switch ended in the guest ("ended 2 background processes"), when anything. */
  | { kind: 'mode'; id: string; mode: Mode; note?: string; warn?: boolean }
  | { kind: 'sandbox'; id: string; policy: SandboxPolicy }
  | { kind: 'host_warning'; id: string; paths: string[]; message: string }
  /** An approval card, or a call a stored rule decided (features/approvals/approvals-view.ts). */
  | ApprovalRow
  /** The model's reasoning, collapsed with its duration (./reasoning-events.ts). */
  | ReasoningRow
  /** An MCP server's question (./elicitation-events.ts). */
  | ElicitationRow
  /** A hook's run (./hook-events.ts). */
  | HookRow

/** Everything the UI shows about one session, derived from its events (queued messages and model waits: ./queue-events). */
export interface SessionView extends QueueFields, CompactionFields, ReasoningFields {
  sessionId: string
  repo: string
  mode: Mode
  /** The guest's sandbox policy. */
  sandbox: SandboxPolicy
  /** When tool calls wait for the user (never | commands | changes). */
  approvalPolicy: ApprovalPolicy
  running: boolean
  /** The model the next message goes to (session_opened, session_resumed, model_changed), null when not recorded. */
  model: { provider: string; model: string } | null
  /** Latest guest state, null before the first guest_status. */
  guest: { state: string; detail?: string } | null
  items: TimelineItem[]
  plan: Plan | null
  /** The plan or spec document awaiting the user's accept or reject, or null. */
  lock: ModeLock | null
  /** The latest spec document drafted (Spec mode), or null. */
  spec: SpecDocument | null
  todos: Todo[]
  /**
   * The bash transcript (commands and their output), bounded and append-only; shared by successive
   * views of the session and appended in place (features/terminal/terminal-log.ts).
   */
  terminal: TerminalLog
  /** Bumped whenever `terminal` grows, so subscribers see a change. */
  terminalVersion: number
  /** When the latest turn started (envelope time, ms since the epoch), for its footer's duration (features/timeline/turn-timing.ts). */
  turnStart?: { turnId: string; time: number }
  /** How many files each turn changed, by turn id (from `turn_changes`). */
  turnChanges: Record<string, number>
  /** The session's goal as last reported (`goal_updated`), or null when none was set. */
  goal?: GoalUpdated | null
  /** The repository's items waiting for the user's decision (`extensions_untrusted`; features/trust/TrustCard.tsx). */
  untrusted?: TrustItem[]
  /** Highest seq applied; envelopes at or below it are duplicates and ignored. */
  lastSeq: number
  /** True while text_delta may extend the last assistant row (no other row came in between). */
  streaming: boolean
}

/** Cap on the per-tool streamed output kept in the timeline, in characters. */
export const TOOL_OUTPUT_CAP = 64 * 1024

/** An empty view for `sessionId` (repo and mode until session_opened arrives). */
export function emptyView(sessionId: string, repo = '', mode: Mode = 'agent', sandbox: SandboxPolicy = 'workspace-write'): SessionView {
  return {
    sessionId,
    repo,
    mode,
    sandbox,
    approvalPolicy: 'commands',
    running: false,
    model: null,
    guest: null,
    items: [],
    plan: null,
    lock: null,
    spec: null,
    todos: [],
    terminal: new TerminalLog(),
    terminalVersion: 0,
    turnChanges: {},
    lastSeq: 0,
    streaming: false,
    ...EMPTY_QUEUE_FIELDS
  }
}
