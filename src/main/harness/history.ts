/**
 * Rebuilds the model history (AI SDK ModelMessages) from a session's persisted events. A tool call
 * with no result (crash, Stop) is closed with an explicit "interrupted" result, so every request
 * the model sees pairs each tool call with a result.
 */
import type { ModelMessage, ToolCallPart, ToolResultPart } from 'ai'
import type { SessionEvent, ToolCall } from '../../shared/events'
import type { ImageRef } from '../../shared/images'
import { imagePart, toolResultWithImage, userContent, type HistoryImages } from './history-images'
import { capToolArgs } from '../../shared/tool-args'

export { MAX_TOOL_ARGS_BYTES, TRUNCATED_ARGS_HEAD_CHARS, capToolArgs, type CappedArgs } from '../../shared/tool-args'

import { INTERRUPTED_RESULT, validateHistory } from './history-validator'
import { compactedView } from './compaction/rebuild'
import { MASK_MIN_CHARS, maskStub } from './compaction/masking'
import { replayedReasoning, type ReasoningPart } from './reasoning'

export { INTERRUPTED_RESULT, HistoryInvalidError } from './history-validator'
export { toolImagePlacement, type HistoryImages, type TurnImages } from './history-images'

/** Tool names every provider accepts when replayed (OpenAI's rule, the strictest): 1–64 of `A-Za-z0-9_-`. */
export const VALID_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** Name replayed in history for a call whose name was empty or invalid (the original is in its error result). */
export const INVALID_TOOL_NAME = 'invalid_tool_name'

/** Name to replay for a call: itself when {@link VALID_TOOL_NAME} matches, else {@link INVALID_TOOL_NAME}. */
export function toModelToolName(name: string): string {
  return VALID_TOOL_NAME.test(name) ? name : INVALID_TOOL_NAME
}

/**
 * Model-facing input of a call: objects pass through; anything else (unparseable args) is wrapped;
 * over {@link MAX_TOOL_ARGS_BYTES} (a log written before the cap) it is replaced by its truncated form.
 */
export function toModelInput(args: unknown): Record<string, unknown> {
  const capped = capToolArgs(args).args
  if (capped !== null && typeof capped === 'object' && !Array.isArray(capped)) return capped as Record<string, unknown>
  return { _raw: typeof capped === 'string' ? capped : JSON.stringify(capped ?? null) }
}

/**
 * Build messages from events, in order: `user_message` → user (left out when a UserPromptSubmit hook
 * blocked its turn), `assistant_message` → assistant (text + tool-call parts), `tool_call_finished` →
 * tool results grouped in one tool message, a `hook_finished` with `context` → user.
 * Other events are ignored. After a compaction the history starts from the latest `compaction_finished`
 * (compaction/rebuild.ts: its summary and keep-set, the verbatim tail, the events after it; masked
 * results become stubs). Calls left without a result get {@link INTERRUPTED_RESULT}. The result
 * passes {@link validateHistory} (run before every model request); `onRepair` gets one line per repair.
 * An assistant message starts with its reasoning blocks that carry `replayReasoningTo`'s metadata
 * (`anthropic`, `openai`; absent: no reasoning is sent back), as the providers require (reasoning.ts).
 * Images (a message's, a tool's) are read back by hash through `images` and placed as the provider
 * needs (history-images.ts); without `images` each becomes a text note.
 * @throws HistoryInvalidError when the history cannot be repaired
 */
export function buildModelMessages(events: readonly SessionEvent[], onRepair?: (note: string) => void, replayReasoningTo?: string, images?: HistoryImages): ModelMessage[] {
  const messages: ModelMessage[] = []
  let pending: ToolCall[] = []
  let results: ToolResultPart[] = []
  /** Images of the pending results, by call id. */
  let resultImages = new Map<string, ImageRef>()

  const closePending = (): void => {
    if (pending.length === 0 && results.length === 0) return
    const answered = new Set(results.map((r) => r.toolCallId))
    for (const call of pending) {
      if (!answered.has(call.callId)) results.push(resultPart(call.callId, call.name, INTERRUPTED_RESULT, true))
    }
    // keep results in the order the calls were made
    const order = new Map(pending.map((c, i) => [c.callId, i]))
    results.sort((a, b) => (order.get(a.toolCallId) ?? 0) - (order.get(b.toolCallId) ?? 0))
    const inline = images?.toolImages !== 'user-message' || !images.vision
    if (results.length > 0) {
      messages.push({ role: 'tool', content: results.map((r) => withImage(r, resultImages.get(r.toolCallId), inline, images)) })
    }
    // Chat Completions: a tool's images follow its results in one user message
    const following = inline ? [] : results.flatMap((r) => (resultImages.has(r.toolCallId) ? [[r, resultImages.get(r.toolCallId)!] as const] : []))
    if (following.length > 0) {
      messages.push({ role: 'user', content: following.flatMap(([r, ref]) => [{ type: 'text' as const, text: `The image ${r.toolName} returned (call ${r.toolCallId}):` }, imagePart(ref, images)]) })
    }
    pending = []
    results = []
    resultImages = new Map()
  }

  const view = compactedView(events)
  // a UserPromptSubmit hook that blocked a turn's prompt takes it out of what the model reads
  const blockedPrompts = new Set(view.replay.flatMap((e) => (e.type === 'hook_finished' && e.event === 'UserPromptSubmit' && e.outcome === 'blocked' && e.turnId ? [e.turnId] : [])))
  if (view.lead !== undefined) messages.push({ role: 'user', content: userContent(view.lead, view.leadImages, images) })
  for (const event of view.replay) {
    switch (event.type) {
      case 'user_message':
        if (blockedPrompts.has(event.turnId)) break
        closePending()
        messages.push({ role: 'user', content: userContent(event.text, event.images, images) })
        break
      case 'hook_finished':
        // what a hook gives the model (additional context, a Stop hook's reason to go on) is a user message here
        if (event.context === undefined) break
        closePending()
        messages.push({ role: 'user', content: event.context })
        break
      case 'assistant_message': {
        closePending()
        const content: Array<{ type: 'text'; text: string } | ReasoningPart | ToolCallPart> = [...replayedReasoning(event.reasoning, replayReasoningTo)]
        if (event.text.length > 0) content.push({ type: 'text', text: event.text })
        for (const call of event.toolCalls) {
          content.push({ type: 'tool-call', toolCallId: call.callId, toolName: toModelToolName(call.name), input: toModelInput(call.args) })
        }
        // reasoning alone (Stop while the model thought) is no message a provider accepts
        if (content.some((p) => p.type !== 'reasoning')) messages.push({ role: 'assistant', content })
        pending = [...event.toolCalls]
        break
      }
      case 'tool_call_finished':
        if (pending.some((c) => c.callId === event.callId) && !results.some((r) => r.toolCallId === event.callId)) {
          const call = view.masked.has(event.callId) && event.result.length >= MASK_MIN_CHARS ? pending.find((c) => c.callId === event.callId) : undefined
          results.push(resultPart(event.callId, event.name, call ? maskStub(call.name, call.args, event.result.length) : event.result, event.isError))
          // a masked result's image goes with it (the model can read the file again)
          if (event.image && !call && !event.isError) resultImages.set(event.callId, event.image)
        }
        break
      default:
        break
    }
  }
  closePending()
  const checked = validateHistory(messages)
  for (const note of checked.repairs) onRepair?.(note)
  return checked.messages
}

function resultPart(toolCallId: string, toolName: string, text: string, isError = false): ToolResultPart {
  return { type: 'tool-result', toolCallId, toolName: toModelToolName(toolName), output: { type: isError ? 'error-text' : 'text', value: text } }
}

/** A result with its image inside (`inline`), or as it is (its image follows in a user message, or there is none). */
function withImage(part: ToolResultPart, ref: ImageRef | undefined, inline: boolean, images: HistoryImages | undefined): ToolResultPart {
  if (!ref || !inline || part.output.type !== 'text') return part
  return toolResultWithImage(part, part.output.value, ref, images)
}
