/**
 * The tool catalog: every tool by name, each wrapped so its result text (and a ToolError's message)
 * never exceeds {@link MAX_RESULT_CHARS}, and {@link toolsFor} to pick the tools a mode offers.
 */
import type { ToolName } from '../../shared/modes'
import { TOOL_NAMES } from '../../shared/modes'
import { ToolError, type ToolDefinition } from './tool'
import { capHead, MAX_RESULT_CHARS } from './limits'
import { readFileTool } from './read-file'
import { writeFileTool } from './write-file'
import { editFileTool } from './edit-file'
import { globTool } from './glob'
import { grepTool } from './grep'
import { bashTool } from './bash'
import { todoReadTool } from './todo-read'
import { todoWriteTool } from './todo-write'
import { planTool } from './plan'

/**
 * Wrap a tool so that its `output` and any ToolError message are capped at `maxChars` characters.
 * Other errors (infrastructure, abort) pass through unchanged.
 * @param def the tool
 * @param maxChars cap in characters (default {@link MAX_RESULT_CHARS})
 */
export function bounded<T extends ToolDefinition>(def: T, maxChars: number = MAX_RESULT_CHARS): T {
  return {
    ...def,
    async execute(input: unknown, ctx: Parameters<T['execute']>[1]) {
      try {
        const res = await def.execute(input, ctx)
        return { ...res, output: capHead(res.output, maxChars) }
      } catch (err) {
        if (err instanceof ToolError && err.message.length > maxChars) throw new ToolError(capHead(err.message, maxChars))
        throw err
      }
    }
  }
}

/** Every tool, keyed by name; each result bounded to {@link MAX_RESULT_CHARS} characters. */
export const TOOL_CATALOG: Readonly<Record<ToolName, ToolDefinition>> = {
  read_file: bounded(readFileTool),
  glob: bounded(globTool),
  grep: bounded(grepTool),
  write_file: bounded(writeFileTool),
  edit_file: bounded(editFileTool),
  bash: bounded(bashTool),
  todo_read: bounded(todoReadTool),
  todo_write: bounded(todoWriteTool),
  plan: bounded(planTool)
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
