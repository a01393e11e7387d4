/**
 * What the USER's config decides about a server's tools: which are exposed and which are read-only
 * (a server's own `readOnlyHint` never counts). Pure; no SDK.
 */
import type { McpServerConfig } from './config-types'

/** Whether the user's config exposes `tool` of `config` (enabledTools, then disabledTools). */
export function toolEnabled(config: McpServerConfig, tool: string): boolean {
  if (config.enabledTools && !config.enabledTools.includes(tool)) return false
  return !config.disabledTools?.includes(tool)
}

/** Whether the user's config marks `tool` of `config` read-only (the server's own hint never counts). */
export function userReadOnly(config: McpServerConfig, tool: string): boolean {
  return config.readOnly === true || (config.readOnlyTools?.includes(tool) ?? false)
}
