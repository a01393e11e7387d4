/**
 * MCP schema deferral (ADR 0034): what each MCP tool's declaration costs in tokens (the estimator
 * compaction uses), whether the offered MCP tools fit the budget (a setting; 10% of the model's
 * context window by default), and which of them are then deferred — sent as a name in `tool_search`'s
 * index instead of a schema — until the model loads them. Pure functions; the session keeps the set
 * of loaded tools (deferral-state.ts).
 */
import { CortexError } from '../../../shared/errors'
import { estimateTokens } from '../../harness/compaction/accounting'

/** Env var: the MCP schema budget, in tokens (e.g. `20000`) or as a share of the context window (`0.1`, `10%`). */
export const MCP_SCHEMA_BUDGET_ENV = 'CORTEX_MCP_SCHEMA_BUDGET'
/** Default budget: this share of the model's context window. */
export const DEFAULT_BUDGET_SHARE = 0.1
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

/** A budget as configured: a number of tokens, or a share of the context window. */
export type SchemaBudget = { tokens: number } | { share: number }

/**
 * Parse the budget setting ({@link MCP_SCHEMA_BUDGET_ENV}, the settings file's `mcpSchemaBudget`):
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
