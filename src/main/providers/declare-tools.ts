/**
 * Declare tools for `streamText` WITHOUT `execute`: the model sees each tool's name, description and
 * JSON schema (derived from zod), the SDK parses and validates the streamed arguments into a
 * `tool-call` part, and nothing runs — our harness dispatches the call itself (docs/architecture.md,
 * "Model I/O"). Follows AI SDK 7's `tool({ description, inputSchema })` (ai/dist/index.d.ts,
 * `tool`, `ToolSet`): a tool without `execute` is never run by the SDK, and with the default
 * `stopWhen: isStepCount(1)` one `streamText` call is exactly one model step.
 */
import { jsonSchema, tool, zodSchema, type JSONSchema7, type Schema, type ToolSet } from 'ai'
import type { z } from 'zod'

/**
 * Each zod input schema's AI SDK schema, made once per process: the SDK derives a tool's JSON
 * schema from zod (`toJSONSchema`) on every request when given the zod object itself, and caches
 * it only on the wrapper made here. Offered tools' schemas are module constants, so every request
 * after the first reuses the JSON schema (the same object `asSchema` would have built).
 */
const SCHEMAS = new WeakMap<z.ZodType, Schema<unknown>>()

/** The cached AI SDK schema of `zod` (see {@link SCHEMAS}). */
function schemaOf(zod: z.ZodType): Schema<unknown> {
  let s = SCHEMAS.get(zod)
  if (!s) SCHEMAS.set(zod, (s = zodSchema<unknown>(zod)))
  return s
}

/** One tool as the model is offered it: unique name, model-facing description, zod input schema. */
export interface DeclaredToolDef {
  name: string
  description: string
  inputSchema: z.ZodType
  /** Sent instead of the schema derived from `inputSchema` (an MCP tool's JSON Schema). */
  jsonSchema?: Record<string, unknown>
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
    tools[def.name] = tool({ description: def.description, inputSchema: def.jsonSchema ? jsonSchema<unknown>(def.jsonSchema as JSONSchema7) : schemaOf(def.inputSchema) })
  }
  return tools
}
