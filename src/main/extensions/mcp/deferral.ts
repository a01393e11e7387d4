/**
 * MCP schema deferral (ADR 0034): what each MCP tool's declaration costs in tokens (the estimator
 * compaction uses), whether the offered MCP tools fit the budget (a setting; 10% of the model's
 * context window by default), and which of them are then deferred — sent as a name in `tool_search`'s
 * index instead of a schema — until the model loads them. Pure functions; the session keeps the set
 * of loaded tools (deferral-state.ts).
 */
import { type SchemaBudget } from '../../../shared/mcp'
import { estimateTokens } from '../../harness/compaction/accounting'

export { DEFAULT_BUDGET_SHARE, MCP_SCHEMA_BUDGET_ENV, parseSchemaBudget, type SchemaBudget } from '../../../shared/mcp'

/** Tokens a declaration costs besides its name, description and schema (the wrapper every provider adds). */
const DECLARATION_OVERHEAD = 12

/** What the cost of a tool is computed from: the declaration the model would be sent. */
export interface CostedTool {
  name: string
  description: string
  /** The JSON Schema sent for it (MCP tools always have one). */
  jsonSchema?: unknown
}

/** Estimated tokens of one tool declaration: its name, description and JSON Schema, plus a fixed overhead. */
export function schemaTokens(tool: CostedTool): number {
  return estimateTokens(tool.name) + estimateTokens(tool.description) + estimateTokens(JSON.stringify(tool.jsonSchema ?? {})) + DECLARATION_OVERHEAD
}

/** The budget in tokens for a context window of `window` tokens. */
export function budgetTokens(budget: SchemaBudget, window: number): number {
  return 'tokens' in budget ? budget.tokens : Math.floor(window * budget.share)
}

/** The outcome of {@link planDeferral}: which tools are deferred and what the MCP schemas cost. */
export interface DeferralPlan {
  /** Names of the tools whose schemas are not sent. */
  deferred: ReadonlySet<string>
  /** Estimated tokens of every offered MCP tool's declaration, were they all sent. */
  totalTokens: number
  /** Estimated tokens of the MCP declarations actually sent (loaded or within budget). */
  sentTokens: number
}

/**
 * Decide which offered MCP tools are deferred for one request. When their declarations together fit
 * `budget`, none is; otherwise every one the model has not loaded is (loaded ones are sent even when
 * they exceed the budget: the model asked for them).
 * @param tools the MCP tools the mode in force offers, each with its {@link schemaTokens} (built-in tools never count)
 * @param budget tokens
 * @param loaded names the model loaded with tool_search
 */
export function planDeferral(tools: ReadonlyArray<{ name: string; tokens: number }>, budget: number, loaded: ReadonlySet<string>): DeferralPlan {
  const totalTokens = tools.reduce((n, t) => n + t.tokens, 0)
  if (totalTokens <= budget) return { deferred: new Set(), totalTokens, sentTokens: totalTokens }
  const deferred = new Set<string>()
  let sentTokens = 0
  for (const t of tools) {
    if (loaded.has(t.name)) sentTokens += t.tokens
    else deferred.add(t.name)
  }
  return { deferred, totalTokens, sentTokens }
}
