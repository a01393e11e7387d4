/**
 * The `task` tool (ADR 0037): starts a subagent — a child turn with a fresh context in the same
 * guest — of a kind (built-in `explore` and `general`, or a custom agent) and returns only its
 * final report. Offered in every mode (`readOnly`): what the child may do is clamped by the mode
 * in force at each of its steps, never more than the parent's.
 */
import { z } from 'zod'
import { TASK_TOOL } from '../../../shared/subagents'
import { taskToolDescription } from '../../harness/prompt/subagents'
import type { SubagentRequest } from '../../tools/subagent-request'
import { defineTool, ToolError, type ToolDefinition } from '../../tools/tool'

/** A kind the model may start: its name and description (listed in the tool's description) and how its child runs. */
export interface SubagentKind extends Omit<SubagentRequest, 'kind' | 'prompt'> {
  name: string
  description: string
}

/** Longest task prompt, in characters (it is the child's whole context to start with). */
export const MAX_TASK_PROMPT_CHARS = 100_000

/** Input of `task`. */
export const TaskInput = z.object({
  kind: z.string().min(1).max(64).describe('Which subagent: explore, general, or a custom agent named in this description.'),
  description: z.string().min(1).max(200).describe('A short label of the task (3-6 words), shown to the user.'),
  prompt: z.string().min(1).max(MAX_TASK_PROMPT_CHARS).describe('The complete task for the subagent: what to find or do, and what to report back.')
})

/** What the model reads when a subagent ended without a final message. */
const NO_REPORT = '(The subagent ended without a report.)'

/**
 * The `task` tool over the kinds offered now.
 * @param kinds the kinds the model may name, asked when the tool is built and at each call
 * @param maxParallel how many task calls of one response run at once (for the description)
 */
export function createTaskTool(kinds: readonly SubagentKind[], maxParallel: number): ToolDefinition<typeof TaskInput> {
  return defineTool({
    name: TASK_TOOL,
    description: taskToolDescription(kinds, maxParallel),
    inputSchema: TaskInput,
    needsGuest: false, // the child's own tools attach the guest (and wait for the turn's snapshot)
    readOnly: true,
    async execute(input, ctx) {
      const kind = kinds.find((k) => k.name === input.kind)
      if (!kind) throw new ToolError(`there is no subagent kind "${input.kind}"; the kinds are: ${kinds.map((k) => k.name).join(', ')}. The call was not run.`)
      if (!ctx.runSubagent) throw new ToolError('subagents cannot be started here. Do the task yourself.')
      const { name, description: _label, ...how } = kind
      const report = await ctx.runSubagent({ ...how, kind: name, prompt: input.prompt })
      return { output: report.text.trim() === '' ? NO_REPORT : report.text }
    }
  })
}
