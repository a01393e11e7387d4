/**
 * Compaction in the session view: the context use after each model request ("context 62% of 200k")
 * and what the MCP tools' schemas cost in it ("MCP schemas 43k tokens, 41k saved …", `mcp_schemas`),
 * a timeline notice per compaction ("compacted 143k → 21k tokens") or failed compaction, and where
 * the compacted part of the timeline ends — rows before it stay visible, marked as compacted
 * (the model now gets a summary of them). Pure, no React.
 */
import { compactionLabel, contextLabel } from '../../../shared/compaction'
import type { SessionEvent } from '../../../shared/events'
import { mcpSchemasLabel } from '../../../shared/mcp'

/** Compaction events (see src/shared/compaction.ts). */
export type CompactionEvent = Extract<SessionEvent, { type: 'compaction_started' | 'compaction_finished' | 'compaction_failed' | 'context_usage' | 'mcp_schemas' }>

/** The view fields compaction sets. */
export interface CompactionFields {
  /** The latest context use (tokens of a window, tokens), absent before the first request. */
  context?: { tokens: number; window: number; label: string }
  /** Timeline rows before this index were compacted (summarised or masked for the model). */
  compactedBefore?: number
  /** What the MCP tools' schemas cost and what deferral saved (latest `mcp_schemas`), absent before it or with no MCP tool offered. */
  mcpSchemas?: { tokens: number; savedTokens: number; deferred: number; tools: number; label: string }
}

/** A notice row as the reducer pushes it. */
type Notice = { kind: 'notice'; id: string; text: string; warn: boolean }

/**
 * Apply a compaction event to a view with `items` (rows) and {@link CompactionFields}.
 * @returns the new view (the input is not mutated)
 */
export function applyCompactionEvent<V extends CompactionFields & { items: readonly unknown[] }>(view: V, event: CompactionEvent, id: string, notice: (n: Notice) => V): V {
  switch (event.type) {
    case 'context_usage':
      return { ...view, context: { tokens: event.tokens, window: event.window, label: contextLabel(event) } }
    case 'mcp_schemas':
      return { ...view, mcpSchemas: event.tools === 0 ? undefined : { tokens: event.tokens, savedTokens: event.tokens - event.sentTokens, deferred: event.deferred, tools: event.tools, label: mcpSchemasLabel(event) } }
    case 'compaction_started':
      return view
    case 'compaction_finished': {
      const next = notice({ kind: 'notice', id, text: `${compactionLabel(event)} · the rows above are kept here; the model gets their summary`, warn: false })
      return { ...next, compactedBefore: view.items.length, context: view.context ? { ...view.context, tokens: event.tokensAfter, label: contextLabel({ tokens: event.tokensAfter, window: view.context.window }) } : view.context }
    }
    case 'compaction_failed':
      return notice({ kind: 'notice', id, text: `compaction stopped: ${event.reason}`, warn: true })
  }
}
