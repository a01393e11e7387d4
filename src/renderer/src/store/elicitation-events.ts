/**
 * MCP servers' questions in the session view (ADR 0034): `mcp_elicitation_requested` adds a question
 * card row, `mcp_elicitation_resolved` closes it with the answer (or why it was cancelled). Pure, no React.
 */
import type { SessionEvent } from '../../../shared/events'
import type { ElicitationAction, ElicitationField } from '../../../shared/mcp-elicitation'

/** A question card: what the server asks and, once closed, how. */
export interface ElicitationRow {
  kind: 'elicitation'
  id: string
  requestId: string
  server: string
  message: string
  fields: Record<string, ElicitationField>
  required: string[]
  /** Set once answered or cancelled. */
  resolved?: { action: ElicitationAction; reason?: string }
}

/** The elicitation events (src/shared/mcp-elicitation.ts). */
export type ElicitationEvent = Extract<SessionEvent, { type: 'mcp_elicitation_requested' | 'mcp_elicitation_resolved' }>

/**
 * Apply an elicitation event to a view's rows.
 * @param push adds a row (the reducer's, in place or not)
 * @param replace swaps one row for another
 */
export function applyElicitationEvent<V extends { items: readonly unknown[] }>(view: V, event: ElicitationEvent, id: string, push: (row: ElicitationRow) => V, replace: (at: number, row: ElicitationRow) => V): V {
  if (event.type === 'mcp_elicitation_requested') {
    const { requestId, server, message, fields, required } = event
    return push({ kind: 'elicitation', id, requestId, server, message, fields, required })
  }
  const at = view.items.findIndex((r) => (r as { kind?: string; requestId?: string }).kind === 'elicitation' && (r as ElicitationRow).requestId === event.requestId)
  if (at < 0) return view
  const row = view.items[at] as ElicitationRow
  return replace(at, { ...row, resolved: { action: event.action, ...(event.reason ? { reason: event.reason } : {}) } })
}
