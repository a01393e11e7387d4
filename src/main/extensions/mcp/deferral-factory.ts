/**
 * The MCP provider's factory with schema deferral around it (ADR 0034): the budget from
 * CORTEX_MCP_SCHEMA_BUDGET or Settings (tokens, a share or a percentage of the window; default 10%), the window
 * and the mode in force from the extension context, the schemas loaded before a resume from its log.
 * One line in EXTENSION_FACTORIES uses it.
 */
import { errorFields } from '../../../shared/logger-types'
import { DEFAULT_CONTEXT_WINDOW } from '../../harness/compaction/accounting'
import type { ExtensionContext, ExtensionProvider } from '../types'
import { DEFAULT_BUDGET_SHARE, MCP_SCHEMA_BUDGET_ENV, parseSchemaBudget, type SchemaBudget } from './deferral'
import { withSchemaDeferral } from './schema-deferral'

/**
 * The budget: CORTEX_MCP_SCHEMA_BUDGET from `env` when set, else the saved setting (`ctx.mcpSchemaBudget`),
 * else the default. A bad value is logged and the default used, so MCP still works.
 * @param env default process.env (the CLI's flags set it)
 */
export function schemaBudgetFrom(ctx: Pick<ExtensionContext, 'logger' | 'mcpSchemaBudget'>, env: NodeJS.ProcessEnv = process.env): SchemaBudget {
  const fromEnv = env[MCP_SCHEMA_BUDGET_ENV]?.trim()
  const [raw, name] = fromEnv ? [fromEnv, MCP_SCHEMA_BUDGET_ENV] : [ctx.mcpSchemaBudget, 'settings.mcpSchemaBudget']
  try {
    return parseSchemaBudget(raw, name)
  } catch (err) {
    ctx.logger.warn(`${name} ignored: the default (${DEFAULT_BUDGET_SHARE * 100}% of the window) is used`, errorFields(err))
    return { share: DEFAULT_BUDGET_SHARE }
  }
}

/**
 * Wrap an MCP provider factory with schema deferral.
 * @param make the MCP provider's factory (undefined: nothing configured for this session)
 */
export function withDeferral(make: (ctx: ExtensionContext) => ExtensionProvider | undefined): (ctx: ExtensionContext) => ExtensionProvider | undefined {
  return (ctx) => {
    const inner = make(ctx)
    if (!inner) return undefined
    return withSchemaDeferral(inner, {
      budget: schemaBudgetFrom(ctx),
      window: ctx.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
      ...(ctx.modeNow ? { modeNow: ctx.modeNow } : {}),
      emit: (e) => ctx.emit(e),
      loaded: (ctx.resumedEvents ?? []).flatMap((e) => (e.type === 'mcp_schemas_loaded' ? e.names : []))
    })
  }
}
