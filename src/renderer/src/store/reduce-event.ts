/**
 * Pure reducer from EventEnvelopes to a per-session view (./session-view.ts): the timeline rows
 * (user messages, streamed assistant text, tool calls via ./tool-events.ts, guest status, errors, turn
 * ends), the plan, the todos, the guest state and the terminal transcript of bash output. No React, no I/O.
 */
import { endedProcessesNote } from '../../../shared/modes'
import { commandLine } from '../../../shared/custom-commands'
import type { EventEnvelope, SessionEvent } from '../../../shared/events'
import { applyApprovalEvent, closeWaiting } from '../features/approvals/approvals-view'
import { checkpointFailedText, revertText } from './checkpoint-events'
import { applyCompactionEvent } from './compaction-events'
import { approvalTerminalText } from '../features/terminal/terminal-approval'
import { applyTurnTiming } from '../features/timeline/turn-timing'
import { applyQueueEvent, dropQueued } from './queue-events'
import { appendsInPlace } from './in-place'
import { applyReasoningEvent } from './reasoning-events'
import { applyElicitationEvent } from './elicitation-events'
import { applyHookEvent } from './hook-events'
import { applyNestedEvent } from './nested-events'
import { parentCallIdOf } from '../../../shared/subagents'
import { applyToolEvent } from './tool-events'
import { goalNotice, modelOf, resumedText } from './notice-text'
import { emptyView, type SessionView, type TimelineItem } from './session-view'

export type { SessionView, TimelineItem } from './session-view'
export { emptyView, TOOL_OUTPUT_CAP } from './session-view'
export { goalNotice, resumedText, turnFooter } from './notice-text'

/** {@link closeWaiting} over the rows after the previous turn's end only: O(turn), not O(session). */
function closeWaitingSinceLastTurn(items: TimelineItem[]): TimelineItem[] {
  let start = items.length - 2
  while (start >= 0 && items[start]?.kind !== 'turn_end') start--
  const tail = items.slice(start + 1)
  const closed = closeWaiting(tail)
  if (closed === tail) return items
  return [...items.slice(0, start + 1), ...closed]
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
    case 'tool_call_started':
    case 'tool_output':
    case 'tool_call_finished':
      return applyToolEvent(view, event, id, (item) => push(item)) // ./tool-events.ts
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
