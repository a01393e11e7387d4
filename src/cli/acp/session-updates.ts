/**
 * Session events → ACP `session/update`s: text, tool calls and their updates (output, result, diffs),
 * plan entries from the todo list, mode changes. The same mapping serves a live turn and the replay
 * of a stored session (`session/load`), where the streamed deltas are gone and each
 * `assistant_message` carries its whole text instead. It renders; it decides nothing.
 */
import type { PlanEntry, SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk'
import type { SessionEvent, Todo } from '../../shared/events'
import { textContent, toolDiffs, toolKind, toolLocations, toolTitle } from './tool-calls'

/** Most characters of a call's streamed output resent with each `tool_call_update` (its tail). */
export const OUTPUT_TAIL_CHARS = 16_000

/** The plan entries of a todo list (every entry at medium priority: Cortex's todos carry none). */
export function planEntries(todos: readonly Todo[]): PlanEntry[] {
  return todos.map((t) => ({ content: t.content, status: t.status, priority: 'medium' }))
}

/** The message the editor shows when a plan or spec awaits the user (the commands that answer it). */
export function lockNotice(kind: 'plan' | 'spec'): string {
  return `\n\nThe ${kind} awaits your decision: send /accept to accept it (Agent mode then carries it out), or /reject FEEDBACK to have it revised.\n`
}

/**
 * Maps one session's events to ACP updates. Keeps per call what a later update needs: the call's
 * arguments (for the diff shown with the result) and its streamed output so far.
 */
export class UpdateMapper {
  private readonly calls = new Map<string, { name: string; args: unknown; output: string }>()

  /** @param repo the session's repository (absolute): relative paths in tool arguments resolve against it */
  constructor(private readonly repo: string) {}

  /**
   * The updates for `event`.
   * @param replay true while replaying a stored log: text comes from `assistant_message` (deltas are not stored), user messages are echoed
   */
  map(event: SessionEvent, replay = false): SessionUpdate[] {
    switch (event.type) {
      case 'text_delta':
        return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } }]
      case 'assistant_message':
        return replay && event.text ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } }] : []
      case 'user_message':
        return replay ? [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: event.text } }] : []
      // the model's reasoning (ADR 0024): live as it streams; from a stored log, each stretch whole
      case 'reasoning_delta':
        return !replay && event.text ? [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } }] : []
      case 'reasoning_done':
        return replay && event.text ? [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } }] : []
      case 'tool_call_started':
        return [this.started(event.callId, event.name, event.args)]
      case 'tool_output':
        return this.output(event.callId, event.chunk)
      case 'tool_call_finished':
        return [this.finished(event.callId, event.name, event.isError, event.result, event.output)]
      case 'todos_updated':
        return [{ sessionUpdate: 'plan', entries: planEntries(event.todos) }]
      case 'plan_updated':
        return [{ sessionUpdate: 'plan', entries: event.plan.steps.map((s) => ({ content: s, status: 'pending', priority: 'medium' })) }]
      case 'mode_changed':
        return [{ sessionUpdate: 'current_mode_update', currentModeId: event.mode }]
      case 'lock_changed':
        return event.lock ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: lockNotice(event.lock.kind) } }] : []
      case 'host_exec_warning':
        return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n⚠ ${event.message}\n` } }]
      default:
        return []
    }
  }

  private started(callId: string, name: string, args: unknown): SessionUpdate {
    this.calls.set(callId, { name, args, output: '' })
    const diffs = toolDiffs(this.repo, name, args)
    return {
      sessionUpdate: 'tool_call', toolCallId: callId, title: toolTitle(name, args), kind: toolKind(name), status: 'in_progress',
      locations: toolLocations(this.repo, name, args), rawInput: args, ...(diffs.length ? { content: diffs } : {})
    }
  }

  private output(callId: string, chunk: string): SessionUpdate[] {
    const call = this.calls.get(callId)
    if (!call) return []
    call.output = (call.output + chunk).slice(-OUTPUT_TAIL_CHARS)
    return [{ sessionUpdate: 'tool_call_update', toolCallId: callId, content: [textContent(call.output)] }]
  }

  private finished(callId: string, name: string, isError: boolean, result: string, output: string | undefined): SessionUpdate {
    const call = this.calls.get(callId)
    this.calls.delete(callId)
    const diffs: ToolCallContent[] = isError ? [] : toolDiffs(this.repo, name, call?.args)
    return {
      sessionUpdate: 'tool_call_update', toolCallId: callId, status: isError ? 'failed' : 'completed',
      content: [...diffs, textContent(result)], rawOutput: { result, ...(output !== undefined ? { output } : {}) }
    }
  }
}
