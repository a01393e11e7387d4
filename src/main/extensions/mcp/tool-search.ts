/**
 * tool_search (ADR 0034): when the MCP tools' schemas exceed their budget they are deferred — the
 * model is not sent them — and this small tool searches the deferred tools' names, servers and
 * descriptions and LOADS the best matches: from the next model request on they are offered with
 * their full schemas. Its result lists each loaded tool with a one-line summary of its arguments, so
 * the model can call it at once. It searches only what `candidates()` gives: the deferred tools the
 * mode in force offers, never one it withholds.
 */
import { z } from 'zod'
import { mcpToolParts } from '../../../shared/mcp'
import { rankTools, type RankedTool } from './tool-rank'

/** The tool's model-facing name. */
export const TOOL_SEARCH_NAME = 'tool_search'
/** Most tools one search loads. */
export const MAX_LOADED_PER_SEARCH = 10
/** Tools a search loads when the model does not say. */
export const DEFAULT_LOADED_PER_SEARCH = 5

/** Input of tool_search. */
export const ToolSearchInput = z.object({
  query: z.string().trim().min(1, 'query must name what the tool should do, e.g. "create invoice"').max(500),
  limit: z.number().int().min(1).max(MAX_LOADED_PER_SEARCH).optional()
})

/** A deferred tool tool_search can find: its names, description and the JSON Schema it would be sent with. */
export interface SearchableTool extends RankedTool {
  jsonSchema?: unknown
}

/** What tool_search works on (the session's deferral state, deferral-state.ts). */
export interface ToolSearchSource {
  /** The deferred tools the mode in force offers now. */
  candidates(): readonly SearchableTool[]
  /** Mark these tools (model-facing names) loaded: sent with their schemas from the next request on. */
  load(names: readonly string[]): void
}

/** The searchable form of a tool with a model-facing name `mcp__<server>__<tool>` (any other name: server '' and tool = name). */
export function searchable(t: { name: string; description: string; jsonSchema?: unknown }): SearchableTool {
  const p = mcpToolParts(t.name)
  return { name: t.name, server: p?.server ?? '', tool: p?.tool ?? t.name, description: t.description, ...(t.jsonSchema !== undefined ? { jsonSchema: t.jsonSchema } : {}) }
}

/** The model-facing description, naming the servers whose tools are deferred and how many each has. */
export function toolSearchDescription(candidates: readonly SearchableTool[]): string {
  const perServer = new Map<string, number>()
  for (const c of candidates) perServer.set(c.server, (perServer.get(c.server) ?? 0) + 1)
  const servers = [...perServer].map(([s, n]) => `${s || '(no server)'} (${n})`).join(', ')
  return `Find and load MCP tools. ${candidates.length} tools of the user's MCP servers are not listed here to save context: ${servers}.

Give keywords for what you need (the action and the thing, e.g. "create invoice", "list pull requests") or a tool's exact name. The best matches are loaded: you can call them from your next step on, by the name the result gives. Search before concluding that no tool can do something.`
}

/** One line describing a JSON Schema's properties: `id: string (required), limit?: integer, tags?: string[]`. */
export function argumentsLine(schema: unknown): string {
  const s = (schema ?? {}) as { properties?: Record<string, unknown>; required?: unknown }
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [])
  const props = s.properties && typeof s.properties === 'object' ? Object.entries(s.properties) : []
  if (props.length === 0) return 'no arguments'
  const typeOf = (p: unknown): string => {
    const o = (p ?? {}) as { type?: unknown; items?: unknown; enum?: unknown }
    if (Array.isArray(o.enum)) return o.enum.slice(0, 5).map((v) => JSON.stringify(v)).join('|')
    if (o.type === 'array') return `${typeOf(o.items)}[]`
    return Array.isArray(o.type) ? o.type.join('|') : typeof o.type === 'string' ? o.type : 'any'
  }
  return props.map(([k, p]) => (required.has(k) ? `${k}: ${typeOf(p)} (required)` : `${k}?: ${typeOf(p)}`)).join(', ')
}

/** A description's first sentence (or its first 160 characters). */
function firstSentence(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim()
  const end = one.search(/[.!?](\s|$)/)
  const s = end >= 0 ? one.slice(0, end + 1) : one
  return s.length > 160 ? `${s.slice(0, 159)}…` : s
}

/**
 * Run a search: rank the candidates, load the matches, and say what was loaded.
 * @returns the text the model gets (never throws for a search that finds nothing: it says so)
 */
export function runToolSearch(source: ToolSearchSource, input: z.infer<typeof ToolSearchInput>): string {
  const candidates = source.candidates()
  if (candidates.length === 0) return 'No MCP tool is deferred now: every tool you may call is already listed with its schema.'
  const found = rankTools(input.query, candidates, input.limit ?? DEFAULT_LOADED_PER_SEARCH)
  if (found.length === 0) {
    return `No MCP tool matches "${input.query}". Try other words: what the tool does, the thing it works on, or its server (${[...new Set(candidates.map((c) => c.server))].join(', ')}).`
  }
  source.load(found.map((t) => t.name))
  const lines = found.map((t) => `- ${t.name} (${t.server} · ${t.tool}): ${firstSentence(t.description)}\n  arguments: ${argumentsLine(t.jsonSchema)}`)
  return `Loaded ${found.length} tool${found.length === 1 ? '' : 's'}; call ${found.length === 1 ? 'it' : 'them'} by name from your next step on (full schemas are sent then):\n${lines.join('\n')}`
}
