/**
 * The model-facing names of a session's MCP tools: `mcp__<server>__<tool>` with every character
 * outside [a-zA-Z0-9_-] replaced by `_`, at most 64 characters (a long name keeps its start and
 * ends with a short hash), unique within the session (a clash gets a hash suffix too).
 */
import { createHash } from 'node:crypto'

/** The prefix of every MCP tool's name. */
export const MCP_TOOL_PREFIX = 'mcp__'

/** The longest tool name providers accept. */
export const MAX_TOOL_NAME = 64

const clean = (s: string): string => s.replace(/[^a-zA-Z0-9_-]/g, '_').replace(/__+/g, '_') || '_'

/**
 * The name of `tool` of `server`, not in `taken` (which it is added to).
 * @param taken names already given in this session (built-ins included)
 */
export function mcpToolName(server: string, tool: string, taken: Set<string>): string {
  let name = `${MCP_TOOL_PREFIX}${clean(server)}__${clean(tool)}`
  const hash = (): string => createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8)
  if (name.length > MAX_TOOL_NAME) name = `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash()}`
  if (taken.has(name)) name = `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash()}`
  for (let i = 2; taken.has(name); i++) name = `${name.slice(0, MAX_TOOL_NAME - 4)}_${i}`
  taken.add(name)
  return name
}
