/**
 * An MCP server's tool as a Cortex tool: named `mcp__<server>__<tool>` (names.ts), the server's
 * input schema sent to the model as it is (`jsonSchema`; the zod schema only checks for an object,
 * the server validates), read-only only when the USER's config says so (the server's
 * `readOnlyHint` is shown in the description, never trusted), and run through the connection with
 * its deadline and Stop. A model-fixable failure (deadline, server error or gone) is an error result.
 */
import { z } from 'zod'
import type { Tool } from '@modelcontextprotocol/client'
import { ToolError, type ToolDefinition } from '../../tools/tool'
import { userReadOnly } from './tool-adapter-rules'
import { McpCallError, type McpConnection } from './connection'
import { mapCallResult } from './result-map'

/** Longest tool description sent to the model, in characters (a server's essay is cut). */
export const MAX_DESCRIPTION_CHARS = 2000

/** The JSON Schema sent to the model: the server's, as an object schema, without `$schema`. */
function modelSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _ignored, ...rest }: Record<string, unknown> = tool.inputSchema
  return { ...rest, type: 'object', properties: rest.properties ?? {} }
}

/**
 * The tool definition of `tool` on `conn`, named `name`.
 * @param inGuest the server runs in the session's guest (the call then counts as a guest tool: the
 *   turn-start snapshot is taken before it, as for any tool that may write the repository)
 */
export function mcpToolDefinition(conn: McpConnection, tool: Tool, name: string, inGuest: boolean): ToolDefinition {
  const server = conn.config.name
  const hint = tool.annotations?.readOnlyHint === true ? ' The server describes it as read-only (a hint; not relied on).' : ''
  const text = (tool.description ?? tool.title ?? '').trim()
  const description = `${text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}…` : text}${text ? '\n\n' : ''}(Tool "${tool.name}" of the MCP server "${server}".${hint})`
  return {
    name,
    description,
    inputSchema: z.record(z.string(), z.unknown()),
    jsonSchema: modelSchema(tool),
    readOnly: userReadOnly(conn.config, tool.name),
    needsGuest: inGuest,
    async execute(input, ctx) {
      ctx.beforeSideEffect?.()
      try {
        const result = await conn.call(tool.name, input as Record<string, unknown>, ctx.signal)
        return mapCallResult(result, `${server}-${tool.name}`.replace(/[^a-zA-Z0-9_-]/g, '_'))
      } catch (err) {
        if (err instanceof McpCallError) throw new ToolError(err.message)
        throw err
      }
    }
  }
}
