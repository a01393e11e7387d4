/**
 * Pure reducer from EventEnvelopes to a per-session view: the timeline rows (user messages,
 * streamed assistant text, one row per tool call, guest status, errors, turn ends), the plan, the
 * todos, the guest state and the terminal transcript of bash output. No React, no I/O.
 */
import type { FileDiff } from '../../../shared/file-diff'
import { endedProcessesNote, type Mode, type ModeLock } from '../../../shared/modes'
import type { ImageRef } from '../../../shared/images'
import { commandLine } from '../../../shared/custom-commands'
import type { SpecDocument } from '../../../shared/proposals'
import type { SandboxPolicy } from '../../../shared/sandbox'
import type { EventEnvelope, Plan, SessionEvent, Todo } from '../../../shared/events'
import type { ApprovalPolicy } from '../../../shared/approvals'
import type { GoalUpdated } from '../../../shared/goal'
import { applyApprovalEvent, closeWaiting, type ApprovalRow } from '../features/approvals/approvals-view'
import { formatUsage, type TurnUsage } from '../../../shared/usage'
import { checkpointFailedText, revertText } from './checkpoint-events'
import { applyCompactionEvent, type CompactionFields } from './compaction-events'
import { TerminalLog } from '../features/terminal/terminal-log'
import { approvalTerminalText } from '../features/terminal/terminal-approval'
import { applyTurnTiming } from '../features/timeline/turn-timing'
import { EMPTY_QUEUE_FIELDS, applyQueueEvent, dropQueued, type QueueFields } from './queue-events'
import { appendsInPlace } from './in-place'
import { callFailed } from '../../../shared/tool-outcome'
import { applyReasoningEvent, type ReasoningFields, type ReasoningRow } from './reasoning-events'
import { applyElicitationEvent, type ElicitationRow } from './elicitation-events'
import { applyHookEvent, type HookRow } from './hook-events'
import type { TrustItem } from '../../../shared/extensions'
import { applyNestedEvent } from './nested-events'
import { parentCallIdOf } from '../../../shared/subagents'

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

function commandOf(args: unknown): string {
  if (args && typeof args === 'object' && 'command' in args) return String(args.command)
  return typeof args === 'string' ? args : JSON.stringify(args)
}

function updateTool(items: TimelineItem[], callId: string, f: (t: Extract<TimelineItem, { kind: 'tool' }>) => TimelineItem): TimelineItem[] {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]
    if (it && it.kind === 'tool' && it.callId === callId) {
      const next = appendsInPlace() ? items : items.slice()
      next[i] = f(it)
      return next
    }
  }
  return items
}

/** {@link closeWaiting} over the rows after the previous turn's end only: O(turn), not O(session). */
function closeWaitingSinceLastTurn(items: TimelineItem[]): TimelineItem[] {
  let start = items.length - 2
  while (start >= 0 && items[start]?.kind !== 'turn_end') start--
  const tail = items.slice(start + 1)
  const closed = closeWaiting(tail)
  if (closed === tail) return items
  return [...items.slice(0, start + 1), ...closed]
}

function findTool(items: TimelineItem[], callId: string): Extract<TimelineItem, { kind: 'tool' }> | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]
    if (it && it.kind === 'tool' && it.callId === callId) return it
  }
  return undefined
}

/**
 * Apply one event to a view.
 * @param view the session's current view
 * @param event the event
 * @param seq the envelope's seq, used for row ids
 * @returns a new view object. The input's items array is left as it was, except inside
 *   {@link withInPlaceAppends} (./in-place.ts), where rows are added to it and tool rows replaced
 *   in it; the terminal log (`view.terminal`) is always appended in place, shared by both views.
 */
export function applyEvent(view: SessionView, event: SessionEvent, seq: number): SessionView {
  const id = `e${seq}`
  const push = (item: TimelineItem, streaming = false): SessionView => {
    if (!appendsInPlace()) return { ...view, items: [...view.items, item], streaming }
    view.items.push(item)
    return { ...view, streaming }
  }
  // a row that does not end the model's text (a guest state, a goal notice) goes above the assistant
  // row still streaming, so the text's next deltas extend that row instead of starting a second one
  const pushBesideStream = (item: TimelineItem): SessionView => {
    const last = view.items[view.items.length - 1]
    if (!view.streaming || last?.kind !== 'assistant') return push(item, view.streaming)
    if (!appendsInPlace()) return { ...view, items: [...view.items.slice(0, -1), item, last] }
    view.items.splice(view.items.length - 1, 0, item)
    return { ...view }
  }
  // a subagent's events fold into its task row (./nested-events.ts)
  const parent = parentCallIdOf(event)
  if (parent !== undefined) return applyNestedEvent(view, event, parent, id)
  switch (event.type) {
    case 'session_opened':
      return { ...view, repo: event.repo, mode: event.mode, sandbox: event.sandbox ?? view.sandbox, approvalPolicy: event.approvalPolicy ?? view.approvalPolicy, model: modelOf(event) ?? view.model }
    case 'model_changed':
      return { ...push({ kind: 'notice', id, text: `model: ${event.model} (from the next message)`, warn: false }), model: { provider: event.provider, model: event.model } }
    case 'user_message':
      return dropQueued(push({
        kind: 'user', id, text: event.text, ...(event.images?.length ? { images: event.images } : {}),
        ...(event.command ? { command: commandLine(event.command), commandFile: event.command.file } : {})
      }), event.queueId)
    case 'message_queued':
    case 'queued_removed':
    case 'model_waiting':
      return applyQueueEvent(view, event)
    case 'model_retrying': {
      // the failed attempt's streamed text is discarded: the retry streams the step again
      const last = view.items[view.items.length - 1]
      const items = view.streaming && last?.kind === 'assistant' && last.turnId === event.turnId ? view.items.slice(0, -1) : view.items
      return applyQueueEvent({ ...view, items, streaming: false }, event)
    }
    case 'extensions_untrusted':
      return { ...view, untrusted: event.items } // the trust card above the composer (features/trust)
    case 'turn_started':
      return { ...view, running: true, mode: event.mode, streaming: false, modelWait: null, returned: [] }
    case 'text_delta': {
      const last = view.items[view.items.length - 1]
      if (view.streaming && last && last.kind === 'assistant' && last.turnId === event.turnId) {
        const items = view.items.slice()
        items[items.length - 1] = { ...last, text: last.text + event.text }
        return { ...view, items }
      }
      return push({ kind: 'assistant', id, turnId: event.turnId, text: event.text }, true)
    }
    case 'assistant_message': {
      // Text already arrived as deltas when streaming; only a non-streamed message adds a row.
      if (view.streaming) {
        const last = view.items[view.items.length - 1]
        if (last?.kind !== 'assistant' || last.turnId !== event.turnId) return { ...view, streaming: false }
        const items = view.items.slice()
        items[items.length - 1] = { ...last, done: true }
        return { ...view, items, streaming: false }
      }
      if (event.text.length === 0) return view
      return push({ kind: 'assistant', id, turnId: event.turnId, text: event.text })
    }
    case 'tool_call_started': {
      const next = push({
        kind: 'tool',
        id,
        turnId: event.turnId,
        callId: event.callId,
        name: event.name,
        args: event.args,
        status: 'running',
        output: ''
      })
      if (event.name === 'bash') {
        next.terminal.append(`\x1b[1;36m$ ${commandOf(event.args)}\x1b[0m\n`)
        next.terminalVersion = view.terminalVersion + 1
      }
      return next
    }
    case 'tool_output': {
      const tool = findTool(view.items, event.callId)
      // call ids are the provider's and may repeat across turns (`call_0`): late output of an
      // earlier turn's call never lands in a newer row
      if (tool && tool.turnId !== event.turnId) return view
      const items = updateTool(view.items, event.callId, (t) => ({
        ...t,
        output: (t.output + event.chunk).slice(-TOOL_OUTPUT_CAP)
      }))
      if (tool?.name !== 'bash') return { ...view, items, streaming: false }
      view.terminal.append(event.stream === 'stderr' ? `\x1b[31m${event.chunk}\x1b[0m` : event.chunk)
      return { ...view, items, terminalVersion: view.terminalVersion + 1, streaming: false }
    }
    case 'tool_call_finished': {
      const tool = findTool(view.items, event.callId)
      // the kept output of a replayed call (its tool_output chunks are not persisted) fills the row and the terminal
      const replayed = event.output !== undefined && tool !== undefined && tool.output === '' && tool.turnId === event.turnId
      const items = updateTool(view.items, event.callId, (t) => ({
        ...t,
        status: callFailed(event) ? 'error' : 'ok',
        result: event.result,
        ...(event.diff ? { diff: event.diff } : {}),
        ...(event.image ? { image: event.image } : {}),
        ...(replayed ? { output: (event.output ?? '').slice(-TOOL_OUTPUT_CAP) } : {})
      }))
      if (!replayed || tool?.name !== 'bash') return { ...view, items, streaming: false }
      view.terminal.append(event.output ?? '')
      return { ...view, items, terminalVersion: view.terminalVersion + 1, streaming: false }
    }
    case 'plan_updated':
      return { ...view, plan: event.plan }
    case 'todos_updated':
      return { ...view, todos: event.todos }
    case 'lock_changed':
      return { ...view, lock: event.lock }
    case 'spec_updated':
      return { ...view, spec: event.spec }
    case 'proposal_decided':
      return view // the next user message (the plan, the spec or the feedback) shows the decision
    case 'mode_changed': {
      const note = endedProcessesNote(event)
      return { ...push({ kind: 'mode', id, mode: event.mode, ...(note ? { note, warn: !!event.endError } : {}) }), mode: event.mode }
    }
    case 'sandbox_changed':
      return { ...push({ kind: 'sandbox', id, policy: event.policy }), sandbox: event.policy }
    case 'guest_status': {
      const guest = event.detail === undefined ? { state: event.state } : { state: event.state, detail: event.detail }
      // A repeated state only refreshes the badge; the timeline shows each state change once.
      if (view.guest?.state === event.state) return { ...view, guest }
      return { ...pushBesideStream({ kind: 'guest', id, ...guest }), guest }
    }
    case 'approval_requested':
    case 'approval_resolved':
    case 'approval_policy_changed': {
      const next = applyApprovalEvent(view, event, id)
      // a bash command waiting for approval reads as waiting in the terminal, not as running
      const line = approvalTerminalText(event, view.items)
      if (line === null) return next
      next.terminal.append(line)
      return { ...next, terminalVersion: view.terminalVersion + 1 }
    }
    case 'host_exec_warning':
      return push({ kind: 'host_warning', id, paths: event.paths, message: event.message })
    case 'turn_ended': {
      const ended = push({ kind: 'turn_end', id, turnId: event.turnId, reason: event.reason, ...(event.usage ? { usage: event.usage } : {}) })
      // nothing waits for approval once the turn is over (only this turn's rows can be waiting)
      return { ...ended, items: closeWaitingSinceLastTurn(ended.items), running: false }
    }
    case 'goal_updated': {
      // the chip follows every update; the timeline notes a new goal and each time it stops running
      const moved = event.state !== 'active' || event.turnsUsed === 0 ? goalNotice(event) : null
      return moved ? { ...pushBesideStream({ kind: 'notice', id, text: moved, warn: event.state !== 'met' && event.state !== 'active' }), goal: event } : { ...view, goal: event }
    }
    case 'usage':
      return view // per-request usage; the turn's totals arrive with turn_ended
    case 'reasoning_delta':
    case 'reasoning_done':
    case 'thinking_changed':
      return applyReasoningEvent(view, event, id, (row) => push(row)) // ./reasoning-events.ts
    case 'mcp_elicitation_requested':
    case 'mcp_elicitation_resolved':
      return applyElicitationEvent(view, event, id, (row) => push(row), (at, row) => {
        const items = appendsInPlace() ? view.items : view.items.slice()
        items[at] = row
        return { ...view, items }
      })
    case 'compaction_started':
    case 'compaction_finished':
    case 'compaction_failed':
    case 'context_usage':
    case 'mcp_schemas':
      return applyCompactionEvent(view, event, id, (n) => push(n)) // ./compaction-events.ts
    case 'mcp_schemas_loaded': // kept for a resume; mcp_schemas carries the figures
    case 'shell_output':
    case 'shell_exited':
      return view // the shell tab (features/terminal/ShellPane.tsx) subscribes to these itself
    case 'session_resumed':
      return { ...push({ kind: 'notice', id, text: resumedText(event), warn: event.skipped > 0 || event.interruptedCalls > 0 }), model: modelOf(event) ?? view.model }
    case 'instructions_loaded':
      return push({ kind: 'notice', id, text: `instructions loaded from ${event.file}${event.truncated ? ` (cut at ${event.bytes} bytes)` : ''}`, warn: event.truncated })
    case 'extension_notice':
      return push({ kind: 'notice', id, text: event.message, warn: true })
    case 'turn_changes':
      return { ...view, turnChanges: { ...view.turnChanges, [event.turnId]: event.files.length + (event.more ?? 0) } }
    case 'checkpoint_failed':
      return push({ kind: 'notice', id, text: checkpointFailedText(event), warn: true })
    case 'changes_reverted':
      return push({ kind: 'notice', id, text: revertText(event), warn: event.skipped.length > 0 })
    case 'hook_started':
    case 'hook_finished':
    case 'hooks_notice': {
      let next: SessionView = view
      const items = applyHookEvent(view.items, event, id, (row) => (next = pushBesideStream(row)))
      return next === view ? { ...view, items } : next
    }
    case 'error':
      return push({ kind: 'error', id, code: event.code, message: event.message })
  }
}

/** The provider and model an opened or resumed session recorded, or null. */
function modelOf(e: { provider?: string; model?: string }): { provider: string; model: string } | null {
  return e.provider && e.model ? { provider: e.provider, model: e.model } : null
}

/** The timeline text of a goal's change: `goal set: TEXT (8 turns)`, or `goal met · 2/8 — evidence`. */
export function goalNotice(e: GoalUpdated): string {
  if (e.state === 'active' && e.turnsUsed === 0) return `goal set: ${e.goal.text} (${e.turnBudget} turns${e.tokenBudget ? `, ${e.tokenBudget} tokens` : ''})`
  return `goal ${e.state.replace('_', ' ')} · ${e.turnsUsed}/${e.turnBudget}${e.reason ? ` — ${e.reason}` : ''}`
}

/** The timeline text of a resume: what the damaged log lost and what a crash left open, if anything. */
export function resumedText(e: Extract<SessionEvent, { type: 'session_resumed' }>): string {
  const parts = ['session resumed']
  if (e.skipped > 0) parts.push(`${e.skipped} damaged log record${e.skipped === 1 ? '' : 's'} skipped`)
  if (e.interruptedCalls > 0) parts.push(`${e.interruptedCalls} tool call${e.interruptedCalls === 1 ? '' : 's'} left running by a crash closed as interrupted`)
  else if (e.interruptedTurn) parts.push('a turn left open by a crash was ended')
  return parts.join(' · ')
}

/** The footer of a turn: its token totals and cost (see formatUsage), or '' without usage. */
export function turnFooter(usage: TurnUsage | undefined): string {
  return usage ? formatUsage(usage) : ''
}

/**
 * Apply an envelope to the map of session views, creating the session's view on first sight.
 * Duplicate or out-of-date envelopes (seq ≤ lastSeq) are ignored.
 * @returns the same map object when nothing changed, else a new one
 */
export function reduceEnvelope(views: Record<string, SessionView>, envelope: EventEnvelope): Record<string, SessionView> {
  const view = views[envelope.sessionId] ?? emptyView(envelope.sessionId)
  if (envelope.seq !== 0 && envelope.seq <= view.lastSeq) return views
  const next = applyTurnTiming(applyEvent(view, envelope.event, envelope.seq), envelope)
  return { ...views, [envelope.sessionId]: { ...next, lastSeq: Math.max(view.lastSeq, envelope.seq) } }
}
