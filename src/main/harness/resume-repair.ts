/**
 * What a crashed process left open in a session's log: the turn that started and never ended, and
 * its tool calls that never got a result. A resume closes them with explicit events (each call gets
 * exactly one "interrupted" result, the turn ends), so the log, the timeline and every later model
 * request agree that nothing is still running.
 */
import type { SessionEvent } from '../../shared/events'
import { isNested } from '../../shared/subagents'

/** Result text of a tool call whose process died while it ran (kill -9, power loss, crash). */
export const CRASH_INTERRUPTED_RESULT = 'Error: interrupted — the app stopped (crashed or was killed) while this tool call ran; its outcome is unknown. Check the state before repeating it.'

/** A turn left open by a crash: its id and the calls of it without a result, in call order. */
export interface OpenTurn {
  turnId: string
  calls: Array<{ callId: string; name: string }>
}

/**
 * Find the turn a crash left open: the last `turn_started` with no `turn_ended` after it, and the
 * tool calls its `assistant_message`s made that have no `tool_call_finished` (call ids compared
 * within the turn only: providers reuse ids such as `call_0` across turns).
 * @returns null when every turn ended
 */
export function findOpenTurn(events: readonly SessionEvent[]): OpenTurn | null {
  let open: OpenTurn | null = null
  let answered = new Set<string>()
  for (const e of events) {
    // a subagent's calls are answered in its own history, which is never replayed (ADR 0037)
    if (isNested(e)) continue
    if (e.type === 'turn_started') {
      open = { turnId: e.turnId, calls: [] }
      answered = new Set()
    } else if (e.type === 'turn_ended' && open?.turnId === e.turnId) {
      open = null
    } else if (open && e.type === 'assistant_message' && e.turnId === open.turnId) {
      for (const c of e.toolCalls) open.calls.push({ callId: c.callId, name: c.name })
    } else if (open && e.type === 'tool_call_finished' && e.turnId === open.turnId) {
      answered.add(e.callId)
    }
  }
  if (!open) return null
  const seen = new Set<string>()
  const calls = open.calls.filter((c) => !answered.has(c.callId) && !seen.has(c.callId) && seen.add(c.callId))
  return { turnId: open.turnId, calls }
}
