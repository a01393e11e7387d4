/**
 * The model-facing names of a session's MCP tools: `mcp__<server>__<tool>` with every character
 * outside [a-zA-Z0-9_-] replaced by `_`, at most 64 characters (a long name keeps its start and
 * ends with a short hash; so does a name the replacing changed), unique within the session (a clash
 * gets a hash suffix too).
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
  // A name the cleaning changed (`g.h` and `g_h` both clean to `g_h`) always carries its hash, so
  // which server connects first never decides which one gets the plain name (an Always rule is
  // stored by this name and must keep meaning the same server's tool).
  const lossy = clean(server) !== server || clean(tool) !== tool
  if (name.length > MAX_TOOL_NAME || lossy) name = `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash()}`
  if (taken.has(name)) name = `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash()}`
  for (let i = 2; taken.has(name); i++) name = `${name.slice(0, MAX_TOOL_NAME - 4)}_${i}`
  taken.add(name)
  return name
}
