/**
 * Plans and specs awaiting the user's decision (Plan and Spec mode locks): the spec document shape,
 * the accept/reject operations and the events they produce. Spread into the operation and event
 * unions of ./events.ts.
 */
import { z } from 'zod'
import { ModeLockSchema, SpecStageSchema } from './modes'

/** One spec document as the spec tool drafted it: its stage, a title, Markdown, and for `tasks` the task list. */
export const SpecDocumentSchema = z.object({
  stage: SpecStageSchema,
  title: z.string().min(1),
  markdown: z.string().min(1),
  /** The ordered tasks (stage `tasks` only): they become the todos when the spec is accepted. */
  tasks: z.array(z.string().min(1)).optional()
})
/** See {@link SpecDocumentSchema}. */
export type SpecDocument = z.infer<typeof SpecDocumentSchema>

/** Feedback sent with a rejection; it becomes the next user message. */
const FeedbackSchema = z.string().trim().min(1).max(20_000)

/**
 * Operations on a pending proposal. `accept_plan`: switch to Agent, the plan's steps become todos and
 * a turn starts whose task is the plan. `reject_plan`: stay in Plan; the feedback starts the next
 * turn. `accept_spec` / `reject_spec`: the same for the spec document awaiting a decision; accepting
 * the `tasks` document switches to Agent with the tasks as todos. All are refused (`invalid_input`)
 * when nothing of that kind awaits a decision and (`busy`) while a turn runs.
 */
export const PROPOSAL_OPERATIONS = [
  z.object({ type: z.literal('accept_plan') }),
  z.object({ type: z.literal('reject_plan'), feedback: FeedbackSchema }),
  z.object({ type: z.literal('accept_spec') }),
  z.object({ type: z.literal('reject_spec'), feedback: FeedbackSchema })
] as const

/**
 * Events of the lock: `lock_changed` (a proposal now awaits the user, or none does: `lock: null`),
 * `spec_updated` (the spec tool drafted a document; persisted, so the spec lives with the session),
 * `proposal_decided` (the user accepted or rejected the plan or a spec document).
 */
export const PROPOSAL_EVENTS = [
  z.object({ type: z.literal('lock_changed'), lock: ModeLockSchema.nullable() }),
  z.object({ type: z.literal('spec_updated'), spec: SpecDocumentSchema }),
  z.object({
    type: z.literal('proposal_decided'),
    kind: z.enum(['plan', 'spec']),
    stage: SpecStageSchema.optional(),
    decision: z.enum(['accepted', 'rejected']),
    feedback: z.string().optional()
  })
] as const
