/**
 * The tool catalog: every tool by name (the session hands it to the harness, whose offeredTools
 * picks the tools a mode offers).
 * Results are bounded once, by the harness (tool-dispatch boundResult, MAX_RESULT_CHARS), not here.
 */
import type { ToolName } from '../../shared/modes'
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
