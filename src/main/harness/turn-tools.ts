/**
 * The tools of a turn at one moment: the built-in catalog plus the tools the session's extensions
 * add now (MCP tools, task, skill, tool_search; src/main/extensions). Asked at each step and again
 * when a call runs, so a tool that appears or goes away mid-turn is offered and allowed accordingly.
 */
import type { ExtraTool } from '../../shared/modes'
import type { ToolDefinition } from '../tools/tool'
import type { TurnDeps } from './turn-deps'

/** A turn's tools now: every tool by name, and the extras (for offeredTools) in the order added. */
export interface TurnTools {
  catalog: Readonly<Record<string, ToolDefinition>>
  extras: readonly ExtraTool[]
}

/**
 * Merge `deps.extraTools()` into `deps.catalog`. An extra that reuses a built-in's name, or a
 * name already taken by an earlier extra, is dropped (the first wins), so no extension can
 * replace `bash` or `edit_file`.
 */
export function turnTools(deps: Pick<TurnDeps, 'catalog' | 'extraTools'>): TurnTools {
  const added = deps.extraTools?.() ?? []
  if (added.length === 0) return { catalog: deps.catalog, extras: [] }
  const catalog: Record<string, ToolDefinition> = { ...deps.catalog }
  const extras: ExtraTool[] = []
  for (const tool of added) {
    if (Object.hasOwn(catalog, tool.name)) continue
    catalog[tool.name] = tool
    extras.push({ name: tool.name, readOnly: tool.readOnly === true })
  }
  return { catalog, extras }
}
