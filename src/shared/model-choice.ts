/**
 * Picking the model per session (issue 23, item 10): the `set_model` operation, the persisted
 * `model_changed` event, and the `listModels` request (the provider's `/models` list where its
 * server has one, plus the per-model table). A model is chosen between turns: `set_model` is
 * refused with `busy` while a turn runs, and applies to the next turn (ADR 0028).
 */
import { z } from 'zod'

/** A model id as providers spell them: 1–200 visible characters, no spaces (`gpt-5-mini`, `qwen2.5-coder:7b`). */
export const ModelIdSchema = z
  .string()
  .min(1, 'a model id cannot be empty')
  .max(200, 'a model id has at most 200 characters')
  .regex(/^[^\s\p{Cc}]+$/u, 'a model id has no spaces or control characters')

/** The `set_model` operation: the session's next turns go to `model` (same provider and base URL). */
export const MODEL_OPERATIONS = [z.object({ type: z.literal('set_model'), model: ModelIdSchema })] as const

/** The `model_changed` event: the model the session's next turn goes to (persisted; a resume keeps it). */
export const MODEL_EVENTS = [z.object({ type: z.literal('model_changed'), provider: z.string(), model: z.string(), baseUrl: z.string().optional() })] as const

/** One model a picker offers: from the server's `/models` list, or from the built-in per-model table. */
export const ListedModelSchema = z.object({ id: z.string(), source: z.enum(['server', 'table']) })
/** See {@link ListedModelSchema}. */
export type ListedModel = z.infer<typeof ListedModelSchema>

/** The model requests. */
export const MODEL_REQUESTS = {
  /**
   * The models a session (or, without `sessionId`, a new session) can use: `current` (provider and
   * model the next message goes to), `models` (the server's `/models` ids first, 10 s deadline,
   * then the per-model table's ids for that provider; no duplicates), and `detail` when the server
   * gave no list (unreachable, no `/models`, refused): the table alone is offered then.
   */
  listModels: {
    input: z.object({ sessionId: z.string().optional() }),
    output: z.object({
      current: z.object({ provider: z.string(), model: z.string() }),
      models: z.array(ListedModelSchema),
      detail: z.string().optional()
    })
  }
} as const
