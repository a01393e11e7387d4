/**
 * Mode table: which tools each mode offers the model. Pure data, shared by the harness (what to
 * offer, what to refuse at execution time) and the renderer (mode picker). Source: ARCHITECTURE.md.
 */
import { z } from 'zod'

/** The names of every tool in the catalog, in the order they are offered. */
export const TOOL_NAMES = [
  'read_file',
  'glob',
  'grep',
  'write_file',
  'edit_file',
  'bash',
  'todo_read',
  'todo_write',
  'plan'
] as const

/** One tool name from {@link TOOL_NAMES}. */
export type ToolName = (typeof TOOL_NAMES)[number]

/** Schema of a mode: `ask` (read-only look-around), `plan` (ask + plan tool), `agent` (everything). */
export const ModeSchema = z.enum(['ask', 'plan', 'agent'])

/** A session mode; decides the tools offered to the model and allowed at execution time. */
export type Mode = z.infer<typeof ModeSchema>

const ASK_TOOLS: readonly ToolName[] = ['read_file', 'glob', 'grep']

/** Tools offered per mode. A tool absent here is never offered and is refused if called anyway. */
export const MODE_TOOLS: Readonly<Record<Mode, readonly ToolName[]>> = {
  ask: ASK_TOOLS,
  plan: [...ASK_TOOLS, 'plan'],
  agent: TOOL_NAMES
}

/**
 * Whether `tool` may run in `mode`.
 * @param mode the mode in force when the call runs (not when it was requested)
 * @param tool any string; unknown tool names are never allowed
 */
export function isToolAllowed(mode: Mode, tool: string): tool is ToolName {
  return (MODE_TOOLS[mode] as readonly string[]).includes(tool)
}
