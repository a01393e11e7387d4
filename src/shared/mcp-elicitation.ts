/**
 * MCP elicitation (ADR 0034): a server asks the user for a few values mid-call (form mode of the
 * protocol's `elicitation/create`). The session shows it as a question card (`mcp_elicitation_requested`),
 * the user answers with `mcp_elicitation_answer` (accept with values, decline, cancel), and the card
 * closes with `mcp_elicitation_resolved` (also on Stop, a deadline or the session's end). Fields are
 * the protocol's flat primitives only. Pure zod, shared with the renderer; spread into ./events.ts.
 */
import { z } from 'zod'

/** One requested value: a string (optionally one of `enum`), a number, an integer or a boolean. */
export const ElicitationFieldSchema = z.object({
  type: z.enum(['string', 'number', 'integer', 'boolean']),
  title: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  enum: z.array(z.string().max(200)).max(100).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  maxLength: z.number().int().nonnegative().optional(),
  default: z.union([z.string(), z.number(), z.boolean()]).optional()
})
/** See {@link ElicitationFieldSchema}. */
export type ElicitationField = z.infer<typeof ElicitationFieldSchema>

/** How the user answered. */
export const ElicitationActionSchema = z.enum(['accept', 'decline', 'cancel'])
/** See {@link ElicitationActionSchema}. */
export type ElicitationAction = z.infer<typeof ElicitationActionSchema>

/** The values of an accepted answer, by field name. */
export const ElicitationContentSchema = z.record(z.string().max(100), z.union([z.string().max(10_000), z.number(), z.boolean()]))
/** See {@link ElicitationContentSchema}. */
export type ElicitationContent = z.infer<typeof ElicitationContentSchema>

/** `mcp_elicitation_answer`: answer card `requestId`; `content` only with `accept`. */
export const ELICITATION_OPERATIONS = [
  z.object({
    type: z.literal('mcp_elicitation_answer'),
    requestId: z.string().min(1),
    action: ElicitationActionSchema,
    content: ElicitationContentSchema.optional()
  })
] as const

/**
 * `mcp_elicitation_requested`: server `server` asks `message` and wants `fields` (`required` names
 * the ones it needs). `mcp_elicitation_resolved`: the card is closed — answered, or `cancel` with a
 * `reason` (Stop, its deadline, the session closing).
 */
export const ELICITATION_EVENTS = [
  z.object({
    type: z.literal('mcp_elicitation_requested'),
    requestId: z.string(),
    server: z.string(),
    message: z.string(),
    fields: z.record(z.string(), ElicitationFieldSchema),
    required: z.array(z.string())
  }),
  z.object({ type: z.literal('mcp_elicitation_resolved'), requestId: z.string(), action: ElicitationActionSchema, reason: z.string().optional() })
] as const

/**
 * Check `content` against the card's fields: every required field present, each value of its type
 * (an integer whole, a number within minimum/maximum, a string within maxLength and one of `enum`).
 * @returns the problems in words, empty when the answer is valid
 */
export function elicitationProblems(fields: Record<string, ElicitationField>, required: readonly string[], content: ElicitationContent): string[] {
  const out: string[] = []
  for (const name of required) if (content[name] === undefined || content[name] === '') out.push(`${fields[name]?.title ?? name} is required`)
  for (const [name, v] of Object.entries(content)) {
    const f = fields[name]
    const label = f?.title ?? name
    if (!f) out.push(`${name} was not asked for`)
    else if (f.type === 'boolean' ? typeof v !== 'boolean' : f.type === 'string' ? typeof v !== 'string' : typeof v !== 'number' || (f.type === 'integer' && !Number.isInteger(v))) out.push(`${label} must be ${f.type === 'integer' ? 'a whole number' : `a ${f.type}`}`)
    else if (typeof v === 'number' && ((f.minimum !== undefined && v < f.minimum) || (f.maximum !== undefined && v > f.maximum))) out.push(`${label} must be from ${f.minimum ?? '-∞'} to ${f.maximum ?? '∞'}`)
    else if (typeof v === 'string' && f.enum && v !== '' && !f.enum.includes(v)) out.push(`${label} must be one of ${f.enum.join(', ')}`)
    else if (typeof v === 'string' && f.maxLength !== undefined && v.length > f.maxLength) out.push(`${label} must be at most ${f.maxLength} characters`)
  }
  return out
}
