/**
 * The model's reasoning in the session view (ADR 0024): `reasoning_delta` grows one row per stretch
 * of reasoning while it streams, `reasoning_done` closes it with its full text and duration (or adds
 * it, on a replay: deltas are not persisted); the timeline shows it collapsed ("Thought for 3.2 s").
 * `thinking_changed` sets the session's level. Pure, no React.
 */
import type { SessionEvent } from '../../../shared/events'
import type { ThinkingLevel } from '../../../shared/thinking'

/** A reasoning row: `done` once its stretch ended (`durationMs` in ms); `redacted` when a block had no readable text. */
export type ReasoningRow = { kind: 'reasoning'; id: string; turnId: string; text: string; done: boolean; durationMs?: number; redacted?: boolean }

/** The view fields reasoning sets. */
export interface ReasoningFields {
  /** The session's thinking level, once set (absent: the model's default). */
  thinking?: ThinkingLevel
}

/** Reasoning events (src/shared/thinking.ts). */
export type ReasoningEvent = Extract<SessionEvent, { type: 'reasoning_delta' | 'reasoning_done' | 'thinking_changed' }>

/** The open reasoning row of `turnId`, searched back to the turn's start: its index, or -1. */
function openRow(items: ReadonlyArray<{ kind: string }>, turnId: string): number {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i] as ReasoningRow | { kind: string; turnId?: string }
    if (it.kind === 'reasoning' && (it as ReasoningRow).turnId === turnId && !(it as ReasoningRow).done) return i
    if ('turnId' in it && it.turnId !== turnId) return -1
  }
  return -1
}

/**
 * Apply a reasoning event to a view with `items`.
 * @param push adds a row (the reducer's push: in place or copied)
 * @returns the new view (the input's items array is not changed, except by `push`)
 */
export function applyReasoningEvent<V extends ReasoningFields & { items: ReadonlyArray<{ kind: string }> }>(
  view: V, event: ReasoningEvent, id: string, push: (row: ReasoningRow) => V
): V {
  if (event.type === 'thinking_changed') return { ...view, thinking: event.level }
  const at = openRow(view.items, event.turnId)
  const row = at >= 0 ? (view.items[at] as ReasoningRow) : undefined
  const replace = (next: ReasoningRow): V => {
    const items = view.items.slice()
    items[at] = next
    return { ...view, items }
  }
  if (event.type === 'reasoning_delta') {
    if (row) return event.text ? replace({ ...row, text: row.text + event.text }) : view
    return push({ kind: 'reasoning', id, turnId: event.turnId, text: event.text, done: false })
  }
  const done: ReasoningRow = { kind: 'reasoning', id: row?.id ?? id, turnId: event.turnId, text: event.text, done: true, durationMs: event.durationMs, ...(event.redacted ? { redacted: true } : {}) }
  return row ? replace(done) : push(done)
}
