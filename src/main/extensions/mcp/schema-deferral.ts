/**
 * MCP schema deferral as a provider wrapper (ADR 0034): around the MCP provider, each time the turn
 * asks for tools (every step, and when a call runs) it costs the MCP tools the mode in force offers;
 * when they exceed the budget, every one the model has not loaded is marked `deferred` (the turn loop
 * then leaves its schema out) and `tool_search` is added to find and load them. It emits
 * `mcp_schemas` whenever the figures change, before the request they describe, and
 * `mcp_schemas_loaded` for each load, so a resumed session sends what its model had loaded.
 *
 * tool_search is read-only (offered in every mode: it runs nothing, it only chooses which schemas
 * are sent) and searches only the deferred tools the mode in force offers, so Ask mode can find a
 * tool the user marked read-only and never learns of one it withholds.
 */
import type { SessionEvent } from '../../../shared/events'
import { offeredTools, type Mode, type ModeLock } from '../../../shared/modes'
import { MCP_TOOL_PREFIX } from '../../../shared/mcp'
import { defineTool, type ToolDefinition } from '../../tools/tool'
import type { ExtensionProvider, McpLiveServer } from '../types'
import { budgetTokens, planDeferral, schemaTokens, type DeferralPlan, type SchemaBudget } from './deferral'
import { runToolSearch, searchable, toolSearchDescription, ToolSearchInput, TOOL_SEARCH_NAME, type ToolSearchSource } from './tool-search'

/** What deferral needs from the session. */
export interface DeferralOptions {
  /** The budget setting (deferral.ts parseSchemaBudget). */
  budget: SchemaBudget
  /** The model's context window in tokens (the budget's base when it is a share). */
  window: number
  /** The mode and lock in force now; absent: every MCP tool counts as offered. */
  modeNow?(): { mode: Mode; lock: ModeLock | null }
  emit(event: SessionEvent): void
  /** Tools the model loaded earlier in this session (a resumed log's `mcp_schemas_loaded`): sent again. */
  loaded?: readonly string[]
}

/** A provider whose tools are deferred past the budget, plus what the user sees of it. */
export interface DeferringProvider extends ExtensionProvider {
  /** The latest figures (what `mcp_schemas` said last), or null before the first `tools()`. */
  figures(): DeferralPlan | null
}

/** Tokens of each tool declaration, kept per tool object (a server's list is re-read only on reconnect). */
const COSTS = new WeakMap<ToolDefinition, number>()
const costOf = (t: ToolDefinition): number => {
  let c = COSTS.get(t)
  if (c === undefined) COSTS.set(t, (c = schemaTokens(t)))
  return c
}

/**
 * Wrap `inner` (the MCP provider: every tool it gives is an MCP tool) with schema deferral.
 * @returns a provider with the same prompt sections, trust items, reloads and close as `inner`
 */
export function withSchemaDeferral(inner: ExtensionProvider, opts: DeferralOptions): DeferringProvider {
  const loaded = new Set<string>(opts.loaded)
  const budget = budgetTokens(opts.budget, opts.window)
  let last: DeferralPlan | null = null
  let said = ''

  const offeredNow = (every: readonly ToolDefinition[]): ToolDefinition[] => {
    const tools = every.filter((t) => t.name.startsWith(MCP_TOOL_PREFIX)) // mcp_read_resource is small and never deferred
    if (!opts.modeNow) return tools
    const { mode, lock } = opts.modeNow()
    const names = new Set(offeredTools(mode, lock, false, tools.map((t) => ({ name: t.name, readOnly: t.readOnly === true }))))
    return tools.filter((t) => names.has(t.name))
  }
  const plan = (offered: readonly ToolDefinition[]): DeferralPlan => planDeferral(offered.map((t) => ({ name: t.name, tokens: costOf(t) })), budget, loaded)
  const source: ToolSearchSource = {
    candidates: () => {
      const offered = offeredNow(inner.tools?.() ?? [])
      const p = plan(offered)
      return offered.filter((t) => p.deferred.has(t.name)).map(searchable)
    },
    load: (names) => {
      const fresh = names.filter((n) => !loaded.has(n))
      for (const n of fresh) loaded.add(n)
      if (fresh.length > 0) opts.emit({ type: 'mcp_schemas_loaded', names: fresh }) // persisted: a resumed session sends them again
    }
  }
  const search = defineTool({
    name: TOOL_SEARCH_NAME,
    description: '',
    inputSchema: ToolSearchInput,
    readOnly: true,
    needsGuest: false,
    async execute(input) {
      return { output: runToolSearch(source, input) }
    }
  })

  return {
    name: inner.name,
    figures: () => last,
    tools() {
      const all = inner.tools?.() ?? []
      const offered = offeredNow(all)
      const p = plan(offered)
      last = p
      const sig = `${offered.length}:${p.deferred.size}:${p.totalTokens}:${p.sentTokens}`
      // nothing to say before the first MCP tool is offered (servers still connecting, or none in this mode)
      if (sig !== said && (said !== '' || offered.length > 0)) {
        said = sig
        opts.emit({ type: 'mcp_schemas', tools: offered.length, deferred: p.deferred.size, tokens: p.totalTokens, sentTokens: p.sentTokens, budget })
      }
      if (p.deferred.size === 0) return all
      const candidates = offered.filter((t) => p.deferred.has(t.name))
      return [...all.map((t) => (p.deferred.has(t.name) ? { ...t, deferred: true } : t)), { ...search, description: toolSearchDescription(candidates.map(searchable)) }]
    },
    ...(inner.promptSections ? { promptSections: () => inner.promptSections!() } : {}),
    ...(inner.trustItems ? { trustItems: () => inner.trustItems!() } : {}),
    ...(inner.turnStarting ? { turnStarting: (signal: AbortSignal) => inner.turnStarting!(signal) } : {}),
    ...(inner.onTrustChanged ? { onTrustChanged: () => inner.onTrustChanged!() } : {}),
    ...(inner.close ? { close: () => inner.close!() } : {}),
    ...(inner.mcpPrompts ? { mcpPrompts: () => inner.mcpPrompts!() } : {}),
    ...(inner.mcpSettled ? { mcpSettled: (signal: AbortSignal) => inner.mcpSettled!(signal) } : {}),
    ...(inner.getMcpPrompt ? { getMcpPrompt: (name: string, args: string, signal: AbortSignal) => inner.getMcpPrompt!(name, args, signal) } : {}),
    mcpServers: () => liveServers(inner)
  }
}

/** What the MCP provider's connections look like from here (mcp/provider.ts `connections`; mcp/connection.ts). */
interface ConnectionLike {
  config: { name: string; readOnly?: boolean; readOnlyTools?: string[] }
  state: McpLiveServer['state']
  error?: string
  tools: Array<{ name: string; description?: string; inputSchema?: unknown }>
}

/** The inner provider's servers: its own `mcpServers()` when it has one, else read from its `connections`. */
function liveServers(inner: ExtensionProvider): readonly McpLiveServer[] {
  if (inner.mcpServers) return inner.mcpServers()
  const conns = (inner as { connections?: readonly ConnectionLike[] }).connections ?? []
  return conns.map((c) => ({
    name: c.config.name,
    state: c.state,
    ...(c.error ? { error: c.error } : {}),
    tools: c.tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      tokens: schemaTokens({ name: t.name, description: t.description ?? '', jsonSchema: t.inputSchema }),
      readOnly: c.config.readOnly === true || (c.config.readOnlyTools ?? []).includes(t.name)
    }))
  }))
}
