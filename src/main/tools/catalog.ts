/**
 * The tool catalog: every tool by name, and {@link toolsFor} to pick the tools a mode offers.
 * Results are bounded once, by the harness (tool-dispatch boundResult, MAX_RESULT_CHARS), not here.
 */
import type { ToolName } from '../../shared/modes'
import { TOOL_NAMES } from '../../shared/modes'
import type { ToolDefinition } from './tool'
import { readFileTool } from './read-file'
import { writeFileTool } from './write-file'
import { editFileTool } from './edit-file'
import { globTool } from './glob'
import { grepTool } from './grep'
import { bashTool } from './bash'
import { todoReadTool } from './todo-read'
import { todoWriteTool } from './todo-write'
import { planTool } from './plan'
import { specTool } from './spec'
import { goalDoneTool } from './goal-done'

/** Every tool, keyed by name. */
export const TOOL_CATALOG: Readonly<Record<ToolName, ToolDefinition>> = {
  read_file: readFileTool,
  glob: globTool,
  grep: grepTool,
  write_file: writeFileTool,
  edit_file: editFileTool,
  bash: bashTool,
  todo_read: todoReadTool,
  todo_write: todoWriteTool,
  plan: planTool,
  spec: specTool,
  goal_done: goalDoneTool
}

/**
 * The definitions for `names`, in the order given (duplicates removed).
 * @param names tool names, e.g. `MODE_TOOLS[mode]`
 * @returns one definition per distinct name
 */
export function toolsFor(names: readonly ToolName[]): ToolDefinition[] {
  return [...new Set(names)].map((n) => TOOL_CATALOG[n])
}

/** All tools in catalog order ({@link TOOL_NAMES}). */
export function allTools(): ToolDefinition[] {
  return toolsFor(TOOL_NAMES)
}
