/**
 * Step streaming: one model request of the turn loop (`streamText` with tools declared WITHOUT
 * `execute`), decoded into the step's text and calls. Text deltas stream out as events; arguments
 * or text past their caps cut the request; how the stream ended decides the step's result
 * ({@link settle}). Watched for silence and retried by model-request.ts.
 */
import { InvalidResponseDataError, streamText } from 'ai'
import { declareTools, providerOfModel, thinkingRequest } from '../providers'
import type { ToolDefinition } from '../tools/tool'
import { buildModelMessages } from './history'
import { DEFAULT_STREAM_IDLE_TIMEOUT_S, requestModel, type AttemptContext } from './model-request'
import { promptParts } from './prompt-cache'
import { addInputDelta, malformedCall, oversizedCall, toStepCall, type StepCall, type StreamingInput } from './step-calls'
import { isAbortError, type ModeState } from './tool-dispatch'
import type { TurnDeps } from './turn-deps'
import { modelIdOf, usageEvent } from './usage'
import { estimateTokens } from './compaction/accounting'
import { isReasoningPart, ReasoningCollector, type StepReasoning } from './reasoning'

/** Longest assistant text kept from one model step, in characters (1 Mi, like the argument cap; a model's output limit, ~64k tokens, is far below it); the response is cut there. */
export const MAX_STEP_TEXT_CHARS = 1024 * 1024

/** Appended where an over-long answer was cut. */
const TEXT_CUT_NOTE = `[Cortex: the answer was cut at ${MAX_STEP_TEXT_CHARS} characters]`

/** What one model step produced: its text, its calls, its reasoning (reasoning.ts), and the SDK error when a call was malformed. */
export type StepResult = { text: string; calls: StepCall[]; malformed?: unknown; reasoning?: StepReasoning }

/**
 * One model step, watched for silence and retried (model-request.ts).
 * @throws CortexError (classified) when the provider fails after the retries
 */
export function streamStep(deps: TurnDeps, mode: ModeState, offered: ToolDefinition[]): Promise<StepResult> {
  const { turnId } = deps
  return requestModel(
    {
      signal: deps.signal,
      idleTimeoutMs: deps.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_S * 1000,
      maxRetries: deps.maxRetries,
      onWaiting: (waitedMs) => deps.emit({ type: 'model_waiting', turnId, waitedMs }),
      onRetry: (attempt, delayMs, reason) => {
        deps.logger?.warn('model request retried', { turnId, attempt, delayMs, reason })
        deps.emit({ type: 'model_retrying', turnId, attempt, delayMs, reason })
      },
      classifyError: deps.classifyError
    },
    (ctx) => streamAttempt(deps, mode, offered, ctx),
    (): StepResult => ({ text: '', calls: [] })
  )
}

/** What an attempt has decoded so far, and why it cut its own request (if it did). */
interface Decoded {
  text: string
  calls: StepCall[]
  finishReason?: string
  /** Arguments that streamed past the cap: the request was cut there. */
  oversized?: StreamingInput
  /** The text reached {@link MAX_STEP_TEXT_CHARS}: the request was cut there. */
  textCut: boolean
}

/** One attempt at a model step; throws the raw provider error (requestModel classifies it). */
async function streamAttempt(deps: TurnDeps, mode: ModeState, offered: ToolDefinition[], ctx: AttemptContext): Promise<StepResult> {
  const { turnId } = deps
  const got: Decoded = { text: '', calls: [], textCut: false }
  // arguments or text past their caps: the request is cut there, so no more of them is buffered
  const cut = new AbortController()
  const inputs = new Map<string, StreamingInput>()
  // reasoning streams as deltas; each stretch of it is one collapsed row (`reasoning_done`) once the answer or a call begins
  const reasoning = new ReasoningCollector(
    (text) => deps.emit({ type: 'reasoning_delta', turnId, text }),
    (r) => deps.emit({ type: 'reasoning_done', turnId, text: r.text, durationMs: r.durationMs, ...(r.redacted ? { redacted: true } : {}) })
  )
  const withReasoning = (r: StepResult): StepResult => {
    reasoning.finish()
    const got = reasoning.result()
    return got ? { ...r, reasoning: got } : r
  }
  try {
    const system = deps.systemPrompt(mode.mode, mode.lock)
    const environment = deps.environment?.()
    // thinking: the session's level as provider options and the model's output cap (providers/thinking.ts)
    const provider = providerOfModel(typeof deps.model === 'string' ? '' : deps.model.provider)
    const thinking = thinkingRequest(provider, modelIdOf(deps.model), deps.thinking?.())
    // signed / encrypted reasoning goes back to its own provider only; an OpenAI-compatible server's never does
    const replayTo = provider === 'openai-compatible' ? undefined : provider
    const messages = buildModelMessages(deps.events(), (note) => deps.logger?.warn('history repaired before the model request', { turnId, note }), replayTo, deps.images)
    // a provider's invalid usage counts are replaced by this estimate of the request (usage.ts)
    const estimate = () => ({
      inputTokens: estimateTokens(system) + estimateTokens(environment ?? '') + estimateTokens(JSON.stringify(messages, withoutBytes)),
      outputTokens: estimateTokens(got.text) + [...inputs.values()].reduce((n, i) => n + Math.ceil(i.chars / 4), 0)
    })
    const result = streamText({
      model: deps.model,
      // Anthropic: cache breakpoints on the system prompt, the tools and the history prefix; the environment block after them (prompt-cache.ts)
      ...promptParts(deps.model, { stable: system, turn: environment }, messages, declareTools(offered)),
      abortSignal: AbortSignal.any([ctx.signal, cut.signal]),
      maxRetries: 0, // retried by requestModel, which honours Stop and the idle timeout
      ...(thinking.providerOptions ? { providerOptions: thinking.providerOptions } : {}),
      ...(deps.maxOutputTokens ?? thinking.maxOutputTokens ? { maxOutputTokens: deps.maxOutputTokens ?? thinking.maxOutputTokens } : {}),
      // errors arrive as `error` parts below; the default handler would print to the console
      onError: () => undefined
    })
    for await (const part of result.fullStream) {
      ctx.alive()
      if (!isReasoningPart(part) && part.type !== 'start-step' && part.type !== 'start') reasoning.finish()
      if (part.type === 'text-delta') {
        const room = MAX_STEP_TEXT_CHARS - got.text.length
        const piece = part.text.length > room ? `${part.text.slice(0, Math.max(0, room))}\n\n${TEXT_CUT_NOTE}` : part.text
        got.text += piece
        deps.emit({ type: 'text_delta', turnId, text: piece })
        if (piece !== part.text) {
          got.textCut = true
          cut.abort()
        }
      } else if (isReasoningPart(part)) {
        reasoning.add(part)
      } else if (part.type === 'tool-input-start') {
        inputs.set(part.id, { callId: part.id, name: part.toolName, chars: 0, head: '' })
      } else if (part.type === 'tool-input-delta') {
        const input = inputs.get(part.id)
        if (input && addInputDelta(input, part.delta) && !got.oversized) {
          got.oversized = input
          cut.abort()
        }
      } else if (part.type === 'tool-call') {
        got.calls.push(toStepCall(part, mode))
      } else if (part.type === 'finish-step') {
        got.finishReason = part.finishReason
        const usage = usageEvent(turnId, modelIdOf(deps.model), part.usage, estimate)
        if (usage.estimated) deps.logger?.warn('the provider reported invalid token usage: estimated instead', { turnId, reported: part.usage })
        deps.emit(usage)
      } else if (part.type === 'error') {
        throw part.error
      }
    }
  } catch (err) {
    return withReasoning(settle(got, { err, stopped: deps.signal, attempt: ctx.signal, mode }))
  }
  return withReasoning(settle(got, { stopped: deps.signal, attempt: ctx.signal, mode }))
}

/**
 * How an attempt's stream ended decides its result, in this order:
 * 1. a cut of our own (arguments or text over the cap), Stop aside: the step as decoded, the over-cap call refused;
 * 2. the attempt went silent (idle timeout), Stop aside: thrown, so requestModel retries;
 * 3. Stop: the calls whose arguments had finished streaming are kept, one still streaming is dropped;
 * 4. a tool call the SDK cannot parse (openai-compatible: an empty or missing name): the model gets an
 *    error result for it and another try, instead of the turn ending;
 * 5. any other error is thrown (requestModel classifies it); a clean end returns the step, its calls
 *    marked invalid when the output limit cut their arguments.
 */
function settle(got: Decoded, end: { err?: unknown; stopped: AbortSignal; attempt: AbortSignal; mode: ModeState }): StepResult {
  const { text, calls } = got
  const failed = 'err' in end
  if (!end.stopped.aborted && got.oversized) return { text, calls: [...calls, oversizedCall(got.oversized)] }
  if (!end.stopped.aborted && got.textCut && failed) return { text, calls }
  // an aborted stream may just end (an `abort` part) instead of throwing
  if (!end.stopped.aborted && end.attempt.aborted && (failed || !got.textCut)) throw failed ? end.err : new Error('the model stream went silent (idle timeout)')
  if (!failed) {
    if (got.finishReason === 'length') for (const c of calls) c.invalidReason = 'the arguments were cut off by the model output limit'
    return { text, calls }
  }
  if (isAbortError(end.err, end.stopped)) return { text, calls }
  if (InvalidResponseDataError.isInstance(end.err)) return { text, calls: [...calls, malformedCall(end.err, end.mode)], malformed: end.err }
  throw end.err
}

/** JSON.stringify replacer for the token estimate: an image's bytes count as a short placeholder, not as their digits. */
function withoutBytes(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? '[image]' : value
}
