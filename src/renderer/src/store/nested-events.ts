/**
 * Subagents in the timeline (ADR 0037): a child turn's events carry the call id of the `task` call
 * that started it (`parentCallId`). Its tool calls become rows nested in that task row
 * (`children`, shown by features/timeline/ToolRow.tsx and folded with it); its text, usage and task
 * prompt add no row (its report is the task call's result; its usage is in the turn's totals).
 */
import type { SessionEvent } from '../../../shared/events'
import { callFailed } from '../../../shared/tool-outcome'
import type { SessionView, TimelineItem } from './reduce-event'
import { appendsInPlace } from './in-place'

/** A tool row of the timeline (a task row holds its subagent's rows as `children`). */
type ToolItem = Extract<TimelineItem, { kind: 'tool' }>

/** Characters of a nested call's streamed output kept in its row (the newest). */
export const NESTED_OUTPUT_CAP = 16 * 1024

/** Most nested rows kept per task row (the latest). */
export const MAX_NESTED_ROWS = 500

/**
 * Apply a child turn's event to the view: its calls to the children of task row `parent` (found
 * by call id in the parent's turn), anything else ignored. Returns `view` itself when nothing changed.
 * @param id the row id for a new nested row
 */
export function applyNestedEvent(view: SessionView, event: SessionEvent, parent: string, id: string): SessionView {
  if (event.type !== 'tool_call_started' && event.type !== 'tool_output' && event.type !== 'tool_call_finished') return view
  const at = findRow(view.items, parent, event.turnId)
  if (at < 0) return view
  const row = view.items[at] as ToolItem
  const children = row.children ?? []
  let next: ToolItem[]
  if (event.type === 'tool_call_started') {
    next = [...children, { kind: 'tool' as const, id, turnId: event.turnId, callId: event.callId, name: event.name, args: event.args, status: 'running' as const, output: '' }].slice(-MAX_NESTED_ROWS)
  } else {
    const i = children.findLastIndex((c) => c.callId === event.callId)
    if (i < 0) return view
    const c = children[i]!
    next = children.slice()
    next[i] = event.type === 'tool_output'
      ? { ...c, output: (c.output + event.chunk).slice(-NESTED_OUTPUT_CAP) }
      : { ...c, status: callFailed(event) ? 'error' : 'ok', result: event.result, ...(event.diff ? { diff: event.diff } : {}), ...(event.image ? { image: event.image } : {}) }
  }
  // a replay replaces the row in place (./in-place.ts), so a long child history stays O(n)
  const items = appendsInPlace() ? view.items : view.items.slice()
  items[at] = { ...row, children: next }
  return { ...view, items }
}

/** Index of the tool row of call `callId` in turn `turnId` (the latest), or -1. */
function findRow(items: readonly TimelineItem[], callId: string, turnId: string): number {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]
    if (it?.kind === 'tool' && it.callId === callId && it.turnId === turnId) return i
  }
  return -1
}
