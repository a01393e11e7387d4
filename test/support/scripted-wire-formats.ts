/**
 * SSE frame generators for the scripted model server, one per wire format, each shaped like the
 * real service's stream (field names, event order, finish reasons):
 * - OpenAI Chat Completions streaming (`chat.completion.chunk`, `data: [DONE]`),
 *   https://platform.openai.com/docs/api-reference/chat-streaming
 * - OpenAI Responses streaming (`response.created` … `response.completed`, typed `event:` lines),
 *   https://platform.openai.com/docs/api-reference/responses-streaming
 * - Anthropic Messages streaming (`message_start` … `message_stop`),
 *   https://docs.anthropic.com/en/api/messages-streaming
 * Text is split into word-sized deltas; tool arguments into several `arguments` / `partial_json`
 * pieces. Generators return frames with a {@link HANG} marker right after the text deltas: the server
 * stops there when the step says `hangAfterText`.
 */

/** One SSE event: optional `event:` name and the `data:` payload (already serialised). */
export interface SseFrame {
  event?: string
  data: string
}

/** Marker in a frame list: where a `hangAfterText` step stops writing and waits for the client to abort. */
export const HANG = Symbol('hang')

/** Marker in a frame list: after the first argument piece of the last tool call; a `hangInToolArgs` step stops there. */
export const HANG_IN_ARGS = Symbol('hang-in-args')

/** A frame list with optional hang points. */
export type FrameList = Array<SseFrame | typeof HANG | typeof HANG_IN_ARGS>

/** Argument pieces of call `index` of `calls`, with {@link HANG_IN_ARGS} after the first piece of the last call. */
function piecesWithHang<T>(argsText: string, index: number, calls: readonly unknown[], frame: (piece: string) => T): Array<T | typeof HANG_IN_ARGS> {
  const out: Array<T | typeof HANG_IN_ARGS> = argPieces(argsText).map(frame)
  if (index === calls.length - 1) out.splice(1, 0, HANG_IN_ARGS)
  return out
}

/** A tool call ready to stream: ids assigned, arguments already a JSON (or deliberately raw) string. */
export interface WireToolCall {
  callId: string
  itemId: string
  name: string
  argsText: string
}

/**
 * Reasoning streamed before the text: Anthropic a `thinking` block (`text`, then `signature`) and a
 * `redacted_thinking` block when `redactedData` is set; Responses a `reasoning` item (its summary
 * `text`, `encrypted` as `encrypted_content`); Chat Completions `reasoning_content` deltas, or with
 * `thinkTags` a `<think>text</think>` prefix of the content instead.
 */
export interface WireReasoning {
  text?: string
  signature?: string
  redactedData?: string
  encrypted?: string
  thinkTags?: boolean
}

/** What a step streams, after the server has assigned ids. */
export interface WireStep {
  /** 1-based index of the request, used in ids. */
  n: number
  model: string
  text?: string
  reasoning?: WireReasoning
  toolCalls: WireToolCall[]
  /** Client asked for a usage chunk (chat completions `stream_options.include_usage`). */
  includeUsage?: boolean
  /** Emit the format's in-stream error event after the text, then end the stream. */
  streamError?: { message: string; type: string }
  /** Tokens to report (default 10 in, 0 cached, 5 out); `input` counts cached tokens too. */
  usage?: WireUsage
}

/** Reported token counts of a step: prompt tokens (cached included), cached prompt tokens, answer tokens. */
export interface WireUsage {
  input: number
  cached?: number
  output?: number
  /** Of `output`, reasoning tokens (Responses `output_tokens_details`, Chat `completion_tokens_details`). */
  reasoning?: number
}

/** The usage of `step` with defaults filled in. */
function usageOf(step: WireStep): Required<WireUsage> {
  return { input: step.usage?.input ?? 10, cached: step.usage?.cached ?? 0, output: step.usage?.output ?? 5, reasoning: step.usage?.reasoning ?? 0 }
}

/** Split text into word-sized deltas (at least 2 when the text has 2+ characters). */
export function textDeltas(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? []
  if (words.length >= 2 || text.length < 2) return words
  const mid = Math.ceil(text.length / 2)
  return [text.slice(0, mid), text.slice(mid)]
}

/** Split a tool-argument string into up to 4 pieces (at least 2 when it has 2+ characters). */
export function argPieces(args: string): string[] {
  if (args.length < 2) return [args]
  const size = Math.max(1, Math.ceil(args.length / 4))
  const out: string[] = []
  for (let i = 0; i < args.length; i += size) out.push(args.slice(i, i + size))
  return out
}

const json = (v: unknown): string => JSON.stringify(v)
const CREATED = 1_700_000_000

/** OpenAI Chat Completions stream (`POST /v1/chat/completions`, `stream: true`). */
export function openAIChatFrames(step: WireStep): FrameList {
  const id = `chatcmpl-scripted-${step.n}`
  const usageField = step.includeUsage ? { usage: null } : {}
  const chunk = (delta: unknown, finish: string | null): SseFrame => ({
    data: json({
      id, object: 'chat.completion.chunk', created: CREATED, model: step.model, system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...usageField
    })
  })
  const frames: FrameList = [chunk({ role: 'assistant', content: '', refusal: null }, null)]
  const r = step.reasoning
  if (r?.text && !r.thinkTags) for (const piece of textDeltas(r.text)) frames.push(chunk({ reasoning_content: piece }, null))
  const content = r?.text && r.thinkTags ? `<think>${r.text}</think>${step.text ?? ''}` : (step.text ?? '')
  for (const piece of textDeltas(content)) frames.push(chunk({ content: piece }, null))
  frames.push(HANG)
  if (step.streamError) {
    frames.push({ data: json({ error: { message: step.streamError.message, type: step.streamError.type, param: null, code: null } }) })
    return frames
  }
  step.toolCalls.forEach((call, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: call.callId, type: 'function', function: { name: call.name, arguments: '' } }] }, null))
    frames.push(...piecesWithHang(call.argsText, index, step.toolCalls, (piece) => chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null)))
  })
  frames.push(chunk({}, step.toolCalls.length > 0 ? 'tool_calls' : 'stop'))
  if (step.includeUsage || step.usage) {
    const u = usageOf(step)
    frames.push({
      data: json({
        id, object: 'chat.completion.chunk', created: CREATED, model: step.model, system_fingerprint: null, choices: [],
        usage: {
          prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output,
          ...(u.cached ? { prompt_tokens_details: { cached_tokens: u.cached } } : {}),
          ...(u.reasoning ? { completion_tokens_details: { reasoning_tokens: u.reasoning } } : {})
        }
      })
    })
  }
  frames.push({ data: '[DONE]' })
  return frames
}

/** OpenAI Responses stream (`POST /v1/responses`, `stream: true`). */
export function openAIResponsesFrames(step: WireStep): FrameList {
  let seq = 0
  const ev = (type: string, body: Record<string, unknown>): SseFrame => ({ event: type, data: json({ type, sequence_number: seq++, ...body }) })
  const respId = `resp_scripted_${step.n}`
  const response = (status: string, output: unknown[], usage: unknown) => ({
    id: respId, object: 'response', created_at: CREATED, status, error: null, incomplete_details: null,
    model: step.model, output, parallel_tool_calls: true, tool_choice: 'auto', tools: [], usage
  })
  const frames: FrameList = [
    ev('response.created', { response: response('in_progress', [], null) }),
    ev('response.in_progress', { response: response('in_progress', [], null) })
  ]
  const output: unknown[] = []
  let outputIndex = 0
  if (step.reasoning) output.push(...responsesReasoning(step, frames, outputIndex++, ev))
  if (step.text) {
    const itemId = `msg_scripted_${step.n}`
    const oi = outputIndex++
    frames.push(ev('response.output_item.added', { output_index: oi, item: { id: itemId, type: 'message', status: 'in_progress', content: [], role: 'assistant' } }))
    frames.push(ev('response.content_part.added', { item_id: itemId, output_index: oi, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } }))
    for (const piece of textDeltas(step.text)) {
      frames.push(ev('response.output_text.delta', { item_id: itemId, output_index: oi, content_index: 0, delta: piece, logprobs: [] }))
    }
    frames.push(HANG)
    if (step.streamError) return [...frames, ev('error', { code: step.streamError.type, message: step.streamError.message, param: null })]
    const part = { type: 'output_text', annotations: [], logprobs: [], text: step.text }
    frames.push(ev('response.output_text.done', { item_id: itemId, output_index: oi, content_index: 0, text: step.text, logprobs: [] }))
    frames.push(ev('response.content_part.done', { item_id: itemId, output_index: oi, content_index: 0, part }))
    const item = { id: itemId, type: 'message', status: 'completed', content: [part], role: 'assistant' }
    frames.push(ev('response.output_item.done', { output_index: oi, item }))
    output.push(item)
  } else {
    frames.push(HANG)
    if (step.streamError) return [...frames, ev('error', { code: step.streamError.type, message: step.streamError.message, param: null })]
  }
  for (const [ci, call] of step.toolCalls.entries()) {
    const oi = outputIndex++
    const base = { id: call.itemId, type: 'function_call', call_id: call.callId, name: call.name }
    frames.push(ev('response.output_item.added', { output_index: oi, item: { ...base, status: 'in_progress', arguments: '' } }))
    frames.push(...piecesWithHang(call.argsText, ci, step.toolCalls, (piece) => ev('response.function_call_arguments.delta', { item_id: call.itemId, output_index: oi, delta: piece })))
    frames.push(ev('response.function_call_arguments.done', { item_id: call.itemId, output_index: oi, arguments: call.argsText }))
    const item = { ...base, status: 'completed', arguments: call.argsText }
    frames.push(ev('response.output_item.done', { output_index: oi, item }))
    output.push(item)
  }
  const u = usageOf(step)
  const usage = { input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: u.reasoning }, total_tokens: u.input + u.output }
  frames.push(ev('response.completed', { response: response('completed', output, usage) }))
  return frames
}

/** The frames of a Responses `reasoning` item at `oi` (pushed to `frames`); returns the finished item for `response.completed`. */
function responsesReasoning(step: WireStep, frames: FrameList, oi: number, ev: (type: string, body: Record<string, unknown>) => SseFrame): unknown[] {
  const r = step.reasoning!
  const id = `rs_scripted_${step.n}`
  const enc = r.encrypted ?? null
  frames.push(ev('response.output_item.added', { output_index: oi, item: { id, type: 'reasoning', summary: [], encrypted_content: enc } }))
  const summary = r.text ? [{ type: 'summary_text', text: r.text }] : []
  if (r.text) {
    frames.push(ev('response.reasoning_summary_part.added', { item_id: id, output_index: oi, summary_index: 0, part: { type: 'summary_text', text: '' } }))
    for (const piece of textDeltas(r.text)) frames.push(ev('response.reasoning_summary_text.delta', { item_id: id, output_index: oi, summary_index: 0, delta: piece }))
    frames.push(ev('response.reasoning_summary_text.done', { item_id: id, output_index: oi, summary_index: 0, text: r.text }))
    frames.push(ev('response.reasoning_summary_part.done', { item_id: id, output_index: oi, summary_index: 0, part: summary[0] }))
  }
  const item = { id, type: 'reasoning', summary, encrypted_content: enc }
  frames.push(ev('response.output_item.done', { output_index: oi, item }))
  return [item]
}

/** Anthropic `thinking` (text, then signature) and `redacted_thinking` blocks from index 0; returns the next index. */
function anthropicReasoning(step: WireStep, frames: FrameList, ev: (type: string, body: Record<string, unknown>) => SseFrame): number {
  const r = step.reasoning
  let index = 0
  if (!r) return index
  if (r.text !== undefined || r.signature !== undefined) {
    frames.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }))
    for (const piece of textDeltas(r.text ?? '')) frames.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }))
    if (r.signature) frames.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: r.signature } }))
    frames.push(ev('content_block_stop', { index: index++ }))
  }
  if (r.redactedData) {
    frames.push(ev('content_block_start', { index, content_block: { type: 'redacted_thinking', data: r.redactedData } }))
    frames.push(ev('content_block_stop', { index: index++ }))
  }
  return index
}

/** Anthropic Messages stream (`POST /v1/messages`, `stream: true`). */
export function anthropicFrames(step: WireStep): FrameList {
  const ev = (type: string, body: Record<string, unknown>): SseFrame => ({ event: type, data: json({ type, ...body }) })
  const frames: FrameList = [
    ev('message_start', {
      message: {
        id: `msg_scripted_${step.n}`, type: 'message', role: 'assistant', model: step.model, content: [],
        stop_reason: null, stop_sequence: null,
        // Anthropic's input_tokens excludes cache reads
        usage: { input_tokens: usageOf(step).input - usageOf(step).cached, cache_creation_input_tokens: 0, cache_read_input_tokens: usageOf(step).cached, output_tokens: 1 }
      }
    })
  ]
  let index = anthropicReasoning(step, frames, ev)
  if (step.text) {
    frames.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }))
    frames.push(ev('ping', {}))
    for (const piece of textDeltas(step.text)) frames.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }))
    frames.push(HANG)
    if (step.streamError) return [...frames, ev('error', { error: { type: step.streamError.type, message: step.streamError.message } })]
    frames.push(ev('content_block_stop', { index }))
    index++
  } else {
    frames.push(HANG)
    if (step.streamError) return [...frames, ev('error', { error: { type: step.streamError.type, message: step.streamError.message } })]
  }
  for (const [ci, call] of step.toolCalls.entries()) {
    frames.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: call.callId, name: call.name, input: {} } }))
    frames.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }))
    frames.push(...piecesWithHang(call.argsText, ci, step.toolCalls, (piece) => ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } })))
    frames.push(ev('content_block_stop', { index }))
    index++
  }
  frames.push(ev('message_delta', { delta: { stop_reason: step.toolCalls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usageOf(step).output } }))
  frames.push(ev('message_stop', {}))
  return frames
}
