/**
 * The interactive CLI's view of subagents (ADR 0037): events a child turn emits carry the call id of
 * the `task` call that started it (`parentCallId`), and fold into that call's row as its list of
 * child calls (name, arguments, status), never into the transcript's top level. A child's usage
 * counts toward the session's totals but not the context (its prompt is its own).
 */
import type { SessionEvent } from '../../shared/events'
import { callFailed } from '../../shared/tool-outcome'
import { addUsage } from '../../shared/usage'
import type { ToolItem, TuiState } from './tui-state'

/** One call a subagent made, as its task row lists it. */
export interface ChildCall {
  callId: string
  name: string
  args: unknown
  status: 'running' | 'ok' | 'error'
  /** The first line of a failed call's result. */
  error?: string
}

/** Most child calls kept per task row (the latest). */
export const MAX_CHILD_CALLS = 200

/**
 * Fold a child turn's event into the state: its tool calls into the row of task call `parent`, its
 * usage into the totals; anything else it emits (its text, its task prompt) is not shown here.
 */
export function reduceNested(s: TuiState, e: SessionEvent, parent: string): TuiState {
  if (e.type === 'usage') return { ...s, usage: addUsage(s.usage, e) }
  if (e.type === 'tool_call_started') {
    return updateRow(s, parent, (t) => ({ ...t, children: [...(t.children ?? []), { callId: e.callId, name: e.name, args: e.args, status: 'running' as const }].slice(-MAX_CHILD_CALLS) }))
  }
  if (e.type === 'tool_call_finished') {
    const failed = callFailed(e)
    return updateRow(s, parent, (t) => ({
      ...t,
      children: (t.children ?? []).map((c) => (c.callId === e.callId ? { ...c, status: failed ? ('error' as const) : ('ok' as const), ...(failed ? { error: e.result.split('\n')[0] ?? '' } : {}) } : c))
    }))
  }
  return s
}

function updateRow(s: TuiState, callId: string, f: (t: ToolItem) => ToolItem): TuiState {
  const i = s.items.findLastIndex((it) => it.kind === 'tool' && it.callId === callId)
  if (i < 0) return s
  const items = s.items.slice()
  items[i] = f(items[i] as ToolItem)
  return { ...s, items, version: s.version + 1 }
}
