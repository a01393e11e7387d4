/**
 * What a custom command's frontmatter asks of the turn it starts (ADR 0036): `allowed-tools`
 * narrows the catalog the turn offers and runs from (never widens it: the mode still decides), and
 * `model` points that one turn at another model of the session's provider.
 */
import type { CommandUse } from '../../../shared/custom-commands'

/** Tools a narrowed turn keeps whatever the command lists: the goal's own report. */
const ALWAYS_KEPT = ['goal_done']

/** The extensions' tools narrowed as {@link narrowCatalog} narrows the catalog. */
export function narrowTools<T extends { name: string }>(tools: readonly T[], command: CommandUse | undefined): readonly T[] {
  if (!command?.allowedTools) return tools
  const keep = new Set([...command.allowedTools, ...ALWAYS_KEPT])
  return tools.filter((t) => keep.has(t.name))
}

/**
 * `catalog` narrowed to the tools `command` allows (as many as it names that exist, plus
 * {@link ALWAYS_KEPT}); `catalog` itself when the command names no `allowed-tools`.
 */
export function narrowCatalog<T>(catalog: Readonly<Record<string, T>>, command: CommandUse | undefined): Readonly<Record<string, T>> {
  if (!command?.allowedTools) return catalog
  const keep = new Set([...command.allowedTools, ...ALWAYS_KEPT])
  return Object.fromEntries(Object.entries(catalog).filter(([name]) => keep.has(name)))
}
