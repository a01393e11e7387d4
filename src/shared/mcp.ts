/**
 * What the front ends see of MCP (ADR 0034): the `mcp_schemas` event (what the MCP tools' schemas
 * cost and how many tokens deferral saved), the parts of an MCP tool's name for "server · tool" rows,
 * and the one-line labels every front end prints. Spread into the event union of ./events.ts.
 */
import { z } from 'zod'
import { formatTokens } from './compaction'
import { CortexError } from './errors'

/**
 * `mcp_schemas`: emitted before a model request whenever the figures change. `tools`: MCP tools the
 * mode in force offers; `deferred`: how many of them are sent without a schema (found through
 * tool_search); `tokens`: estimated tokens of all their declarations; `sentTokens`: of those sent;
 * `budget`: the schema budget in tokens. Saved tokens are `tokens - sentTokens`.
 */
export const McpSchemasEventSchema = z.object({
  type: z.literal('mcp_schemas'),
  turnId: z.string().optional(),
  tools: z.number().int().nonnegative(),
  deferred: z.number().int().nonnegative(),
  tokens: z.number().int().nonnegative(),
  sentTokens: z.number().int().nonnegative(),
  budget: z.number().int().nonnegative()
})
/** See {@link McpSchemasEventSchema}. */
export type McpSchemasEvent = z.infer<typeof McpSchemasEventSchema>

/**
 * `mcp_schemas_loaded`: the model loaded these deferred MCP tools' schemas (tool_search); they are
 * sent from the next request on, and again after the session is resumed (the log keeps them).
 * Front ends need not show it (`mcp_schemas` carries the figures).
 */
export const McpSchemasLoadedEventSchema = z.object({
  type: z.literal('mcp_schemas_loaded'),
  turnId: z.string().optional(),
  names: z.array(z.string())
})

/** MCP events, spread into the session event union. */
export const MCP_EVENTS = [McpSchemasEventSchema, McpSchemasLoadedEventSchema] as const

/** The prefix of every MCP tool's model-facing name: `mcp__<server>__<tool>`. */
export const MCP_TOOL_PREFIX = 'mcp__'

/**
 * The server and tool of an MCP tool's model-facing name `mcp__<server>__<tool>` (the server is what
 * lies before the first `__` after the prefix), or null for any other name.
 */
export function mcpToolParts(name: string): { server: string; tool: string } | null {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return null
  const rest = name.slice(MCP_TOOL_PREFIX.length)
  const cut = rest.indexOf('__')
  if (cut <= 0 || cut + 2 >= rest.length) return null
  return { server: rest.slice(0, cut), tool: rest.slice(cut + 2) }
}

/** The label of a tool row: `server · tool` for an MCP tool, the name itself otherwise. */
export function toolLabel(name: string): string {
  const p = mcpToolParts(name)
  return p ? `${p.server} · ${p.tool}` : name
}

/**
 * "MCP schemas 43k tokens, 41k saved (195 of 200 deferred)", or "MCP schemas 3.1k tokens (12 tools)"
 * when nothing is deferred; '' when no MCP tool is offered.
 */
export function mcpSchemasLabel(e: Pick<McpSchemasEvent, 'tools' | 'deferred' | 'tokens' | 'sentTokens'>): string {
  if (e.tools === 0) return ''
  if (e.deferred === 0) return `MCP schemas ${formatTokens(e.tokens)} tokens (${e.tools} tool${e.tools === 1 ? '' : 's'})`
  return `MCP schemas ${formatTokens(e.tokens)} tokens, ${formatTokens(e.tokens - e.sentTokens)} saved (${e.deferred} of ${e.tools} deferred)`
}

/**
 * The status-line form: "mcp 2.3k/43k tokens, 40.7k saved (195 deferred)" with deferral (sent of all
 * the schemas' tokens, and what deferral saved), "mcp 3.1k tokens" without; '' with no MCP tool offered.
 */
export function mcpSchemasShort(e: Pick<McpSchemasEvent, 'tools' | 'deferred' | 'tokens' | 'sentTokens'>): string {
  if (e.tools === 0) return ''
  return e.deferred === 0 ? `mcp ${formatTokens(e.tokens)} tokens` : `mcp ${formatTokens(e.sentTokens)}/${formatTokens(e.tokens)} tokens, ${formatTokens(e.tokens - e.sentTokens)} saved (${e.deferred} deferred)`
}

/** Env var: the MCP schema budget, in tokens (e.g. `20000`) or as a share of the context window (`0.1`, `10%`); wins over the setting. */
export const MCP_SCHEMA_BUDGET_ENV = 'CORTEX_MCP_SCHEMA_BUDGET'
/** Default budget: this share of the model's context window. */
export const DEFAULT_BUDGET_SHARE = 0.1

/** A budget as configured: a number of tokens, or a share of the context window. */
export type SchemaBudget = { tokens: number } | { share: number }

/**
 * Parse the budget setting ({@link MCP_SCHEMA_BUDGET_ENV}, or Settings' `mcpSchemaBudget`):
 * a whole number is tokens (`0` defers every MCP tool whatever it costs), a fraction in (0, 1) or a
 * percentage `N%` is a share of the window.
 * @returns the default share when unset or empty
 * @throws CortexError('invalid_input') naming the setting for anything else
 */
export function parseSchemaBudget(raw: string | number | undefined, name = MCP_SCHEMA_BUDGET_ENV): SchemaBudget {
  if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) return { share: DEFAULT_BUDGET_SHARE }
  const text = String(raw).trim()
  const pct = /^(\d+(?:\.\d+)?)\s*%$/.exec(text)
  if (pct) {
    const p = Number(pct[1])
    if (p > 0 && p <= 100) return { share: p / 100 }
  } else {
    const n = Number(text)
    if (Number.isFinite(n) && n > 0 && n < 1) return { share: n }
    if (Number.isInteger(n) && n >= 0 && n <= 10_000_000) return { tokens: n }
  }
  throw new CortexError('invalid_input', `${name}="${text}" must be a number of tokens (0-10000000), a share of the context window (0.1) or a percentage (10%)`)
}
