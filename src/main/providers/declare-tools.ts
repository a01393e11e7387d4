/**
 * Declare tools for `streamText` WITHOUT `execute`: the model sees each tool's name, description and
 * JSON schema (derived from zod), the SDK parses and validates the streamed arguments into a
 * `tool-call` part, and nothing runs — our harness dispatches the call itself (docs/architecture.md,
 * "Model I/O"). Follows AI SDK 7's `tool({ description, inputSchema })` (ai/dist/index.d.ts,
 * `tool`, `ToolSet`): a tool without `execute` is never run by the SDK, and with the default
 * `stopWhen: isStepCount(1)` one `streamText` call is exactly one model step.
 */
import { tool, type ToolSet } from 'ai'
import type { z } from 'zod'

/** One tool as the model is offered it: unique name, model-facing description, zod input schema. */
export interface DeclaredToolDef {
  name: string
  description: string
  inputSchema: z.ZodType
}

/**
 * Build the `tools` option for `streamText` from tool definitions (extra fields such as `execute`
 * on the inputs are ignored and never reach the SDK).
 *
 * @param defs tools to offer, in order; names must match /^[a-zA-Z0-9_-]{1,64}$/ (the strictest of
 *   the three APIs: OpenAI function names) and be unique.
 * @returns a ToolSet keyed by tool name, each `{ description, inputSchema }` with no `execute`.
 * @throws Error on a duplicate or invalid name (a programming error, not a user-facing one).
 */
export function declareTools(defs: readonly DeclaredToolDef[]): ToolSet {
  const tools: ToolSet = {}
  for (const def of defs) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(def.name)) throw new Error(`invalid tool name "${def.name}"`)
    if (Object.hasOwn(tools, def.name)) throw new Error(`duplicate tool name "${def.name}"`)
    tools[def.name] = tool({ description: def.description, inputSchema: def.inputSchema })
  }
  return tools
}
