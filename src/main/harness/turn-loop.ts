/**
 * The Code turn: one `streamText` call per model step with tools declared WITHOUT `execute`; our
 * loop runs the tool calls in order inside the guest, records the results, and asks again, until
 * the model stops calling tools or Stop aborts. There is no round budget.
 */
import { randomUUID } from 'node:crypto'
import { detach } from '../../shared/tool-args'
import { InvalidResponseDataError, streamText, type LanguageModel } from 'ai'
import type { CortexError } from '../../shared/errors'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { SessionEvent, ToolCall } from '../../shared/events'
import { offeredTools, type Mode, type ModeLock } from '../../shared/modes'
import type { Guest } from '../guest/guest'
import type { ToolDefinition, ToolSessionState } from '../tools/tool'
import { declareTools } from '../providers'
import { INVALID_TOOL_NAME, MAX_TOOL_ARGS_BYTES, TRUNCATED_ARGS_HEAD_CHARS, VALID_TOOL_NAME, buildModelMessages, capToolArgs } from './history'
import type { ApprovalGate } from './approvals/approval-gate'
import { closeUnstarted, interruptedResult, KEPT_OUTPUT_EDGE_CHARS, OutputTail } from './interrupted'
import { dispatchToolCall, isAbortError, type ModeState } from './tool-dispatch'
import { LoopGuard } from './loop-guard'
import { DEFAULT_STREAM_IDLE_TIMEOUT_S, requestModel, type AttemptContext } from './model-request'
import { promptParts } from './prompt-cache'
import { modelIdOf, usageEvent } from './usage'
import { compactAroundRequest, turnCompactionContext, type TurnCompaction } from './compaction/trigger'

/** Everything a turn needs; supplied by the session. */
export interface TurnDeps {
  turnId: string
  model: LanguageModel
  /** Aborted by Stop: ends the stream and kills what runs in the guest. */
  signal: AbortSignal
  catalog: Readonly<Record<string, ToolDefinition>>
  /** The mode in force now (it may change between steps). */
  getMode(): Mode
  /** The lock in force now (a plan or spec document awaiting the user); none when absent. */
  getLock?(): ModeLock | null
  /** Whether a goal is active now (goal_done is offered; harness/goal.ts); absent: no goal. */
  getGoalActive?(): boolean
  /** Persisted events so far (the history source). */
  events(): readonly SessionEvent[]
  emit(event: SessionEvent): void
  /** The attached guest; attaches and prepares one first if none is attached. */
  getGuest(): Promise<Guest>
  session: ToolSessionState
  /** Map a provider failure to a typed error (provider_unreachable / provider_error). */
  classifyError(err: unknown): CortexError
  /** System prompt for the given mode and lock. */
  systemPrompt(mode: Mode, lock?: ModeLock | null): string
  /** Retries per model request for retryable HTTP / connection failures (model-request.ts; default 2). */
  maxRetries?: number
  /** A model stream silent this long (ms) is aborted and retried once, then the turn ends with `provider_timeout` (default 120 s). */
  streamIdleTimeoutMs?: number
  /** Messages queued during the turn, taken (and so delivered) at each step boundary as their own user messages. */
  takeQueued?(): Array<{ queueId: string; text: string }>
  /** Output cap per model step in tokens; unset leaves the provider's default. */
  maxOutputTokens?: number
  /** Where the turn logs failed calls and model errors (default nowhere). */
  logger?: Logger
  /** The session's approval gate (policy, rules, escalations); absent, every call runs without asking. */
  approvals?: ApprovalGate
  /** Compaction settings and sources (harness/compaction); absent: the history is never compacted. */
  compaction?: TurnCompaction
}

/** How a turn ended (errors are thrown instead). */
export type TurnOutcome = 'completed' | 'stopped'

interface StepCall extends ToolCall {
  invalidReason?: string
  /** A complete error result given without dispatching (over-cap arguments, invalid name). */
  refusal?: string
}

/** How many characters of an invalid tool name are quoted back to the model. */
const QUOTED_NAME_CHARS = 80

/** What a refused over-cap call tells the model to do instead. */
const SPLIT_ADVICE = 'Split the work into smaller calls (for a large file, write it in parts with several edit_file calls, or generate it with a bash command).'

/** Longest assistant text kept from one model step, in characters (1 Mi, like the argument cap; a model's output limit, ~64k tokens, is far below it); the response is cut there. */
export const MAX_STEP_TEXT_CHARS = 1024 * 1024

/** Appended where an over-long answer was cut. */
const TEXT_CUT_NOTE = `[Cortex: the answer was cut at ${MAX_STEP_TEXT_CHARS} characters]`

/** Consecutive model steps with a malformed tool call the SDK cannot parse (e.g. an empty name) before the turn ends with an error. */
export const MAX_MALFORMED_STEPS = 3

/**
 * Run one turn to its end.
 * @returns `completed` when the model answered without tool calls, `stopped` after Stop
 * @throws CortexError for provider or guest failures (the session emits it and ends the turn)
 */
export async function runTurn(deps: TurnDeps): Promise<TurnOutcome> {
  const { signal, turnId } = deps
  let malformed = 0
  const guard = new LoopGuard()
  for (let first = true; ; first = false) {
    if (signal.aborted) return 'stopped'
    // step boundary: messages typed during the turn reach the model now, each as its own user message
    if (!first) for (const m of deps.takeQueued?.() ?? []) deps.emit({ type: 'user_message', turnId, text: m.text, queueId: m.queueId })
    const mode = deps.getMode()
    const lock = deps.getLock?.() ?? null
    const goalActive = deps.getGoalActive?.() ?? false
    const offered = offeredTools(mode, lock, goalActive).map((name) => deps.catalog[name]).filter((t): t is ToolDefinition => !!t)
    // compaction before the request when over the threshold, and once on "prompt too long" (compaction/trigger.ts)
    const step = deps.compaction
      ? await compactAroundRequest(turnCompactionContext(deps, deps.compaction, deps.systemPrompt(mode, lock), offered), () => streamStep(deps, { mode, lock, goalActive }, offered))
      : await streamStep(deps, { mode, lock, goalActive }, offered)
    if (step === 'stopped') return 'stopped'
    malformed = step.malformed ? malformed + 1 : 0
    if (step.malformed && malformed >= MAX_MALFORMED_STEPS) throw deps.classifyError(step.malformed)
    deps.emit({
      type: 'assistant_message',
      turnId,
      text: step.text,
      toolCalls: step.calls.map(({ callId, name, args }) => ({ callId, name, args }))
    })
    if (signal.aborted) {
      // calls whose arguments were complete when Stop came are recorded, each with a "not run" result
      closeUnstarted(turnId, deps.emit, step.calls, 'stopped')
      return 'stopped'
    }
    if (step.calls.length === 0) return 'completed'
    for (const [i, call] of step.calls.entries()) {
      if (signal.aborted) {
        closeUnstarted(turnId, deps.emit, step.calls.slice(i), 'stopped')
        return 'stopped'
      }
      try {
        await runCall(deps, call, guard)
      } catch (err) {
        closeUnstarted(turnId, deps.emit, step.calls.slice(i + 1), 'error')
        throw err
      }
    }
  }
}

/** What one model step produced. */
type StepResult = { text: string; calls: StepCall[]; malformed?: unknown }

/** One model step, watched for silence and retried (model-request.ts). */
function streamStep(deps: TurnDeps, mode: ModeState, offered: ToolDefinition[]): Promise<StepResult> {
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

/** One attempt at a model step; throws the raw provider error (requestModel classifies it). */
async function streamAttempt(deps: TurnDeps, mode: ModeState, offered: ToolDefinition[], ctx: AttemptContext): Promise<StepResult> {
  const { signal, turnId } = deps
  let text = ''
  const calls: StepCall[] = []
  let finishReason: string | undefined
  // arguments streaming past the cap: the request is cut there, so no more of them is buffered
  const cut = new AbortController()
  const inputs = new Map<string, StreamingInput>()
  let oversized: StreamingInput | undefined
  let textCut = false
  try {
    const result = streamText({
      model: deps.model,
      // Anthropic: cache breakpoints on the system prompt, the tools and the history prefix (prompt-cache.ts)
      ...promptParts(deps.model, deps.systemPrompt(mode.mode, mode.lock), buildModelMessages(deps.events(), (note) => deps.logger?.warn('history repaired before the model request', { turnId, note })), declareTools(offered)),
      abortSignal: AbortSignal.any([ctx.signal, cut.signal]),
      maxRetries: 0, // retried by requestModel, which honours Stop and the idle timeout
      ...(deps.maxOutputTokens ? { maxOutputTokens: deps.maxOutputTokens } : {}),
      // errors arrive as `error` parts below; the default handler would print to the console
      onError: () => undefined
    })
    for await (const part of result.fullStream) {
      ctx.alive()
      if (part.type === 'text-delta') {
        const room = MAX_STEP_TEXT_CHARS - text.length
        const piece = part.text.length > room ? `${part.text.slice(0, Math.max(0, room))}\n\n${TEXT_CUT_NOTE}` : part.text
        text += piece
        deps.emit({ type: 'text_delta', turnId, text: piece })
        if (piece !== part.text) {
          textCut = true
          cut.abort()
        }
      } else if (part.type === 'tool-input-start') {
        inputs.set(part.id, { callId: part.id, name: part.toolName, chars: 0, head: '' })
      } else if (part.type === 'tool-input-delta') {
        const input = inputs.get(part.id)
        if (input) {
          input.chars += part.delta.length
          if (input.head.length < TRUNCATED_ARGS_HEAD_CHARS) input.head += part.delta.slice(0, TRUNCATED_ARGS_HEAD_CHARS - input.head.length)
          if (input.chars > MAX_TOOL_ARGS_BYTES && !oversized) {
            oversized = input
            cut.abort()
          }
        }
      } else if (part.type === 'tool-call') {
        calls.push(toStepCall(part, mode))
      } else if (part.type === 'finish-step') {
        finishReason = part.finishReason
        deps.emit(usageEvent(turnId, modelIdOf(deps.model), part.usage))
      } else if (part.type === 'error') {
        throw part.error
      }
    }
  } catch (err) {
    if (oversized && !signal.aborted) return { text, calls: [...calls, oversizedCall(oversized)] }
    if (textCut && !signal.aborted) return { text, calls }
    if (ctx.signal.aborted && !signal.aborted) throw err // silent for the idle timeout: requestModel retries
    // Stop: calls whose arguments had finished streaming are kept; one still streaming is dropped
    if (isAbortError(err, signal)) return { text, calls }
    // a tool call the SDK cannot parse (openai-compatible: an empty or missing name) ends the stream;
    // the model gets an error result for it and another try, instead of the turn ending
    if (InvalidResponseDataError.isInstance(err)) return { text, calls: [...calls, malformedCall(err, mode)], malformed: err }
    throw err
  }
  // an aborted stream may just end (an `abort` part) instead of throwing
  if (ctx.signal.aborted && !signal.aborted && !oversized && !textCut) throw new Error('the model stream went silent (idle timeout)')
  if (oversized && !signal.aborted) return { text, calls: [...calls, oversizedCall(oversized)] }
  if (finishReason === 'length') {
    for (const c of calls) c.invalidReason = 'the arguments were cut off by the model output limit'
  }
  return { text, calls }
}

/**
 * One streamed tool call as the loop keeps it: arguments over {@link MAX_TOOL_ARGS_BYTES} are
 * replaced by their truncated form (so the log and every later request stay small) and refused;
 * a name no provider would accept back (empty, `../x`, kilobytes of junk) is refused by a quoted cut.
 */
function toStepCall(part: { toolCallId: string; toolName: string; input: unknown; invalid?: boolean }, mode: ModeState): StepCall {
  const capped = capToolArgs(part.input)
  const call: StepCall = { callId: part.toolCallId, name: part.toolName, args: capped.args }
  if (!VALID_TOOL_NAME.test(part.toolName)) {
    const quoted = JSON.stringify(part.toolName.slice(0, QUOTED_NAME_CHARS)) + (part.toolName.length > QUOTED_NAME_CHARS ? '…' : '')
    call.name = detach(part.toolName.slice(0, QUOTED_NAME_CHARS))
    call.refusal =
      `Error: tool ${quoted} does not exist: it is not a valid tool name (1-64 letters, digits, _ or -); it was not run. ` +
      `Tools available now: ${offeredTools(mode.mode, mode.lock, mode.goalActive).join(', ')}.`
  } else if (capped.truncated) {
    call.refusal =
      `Error: the arguments of this ${part.toolName} call are ${capped.bytes} bytes, over the ${MAX_TOOL_ARGS_BYTES}-byte cap; ` +
      `it was not run and its arguments were dropped. ${SPLIT_ADVICE}`
  } else if (part.invalid === true && isUnparseable(part.input)) {
    // unknown tools are refused by name in dispatch; schema problems are re-checked there
    call.invalidReason = 'the arguments are not valid JSON'
  }
  return call
}

/** A tool call whose arguments are still streaming: `chars` so far (UTF-16 units, at most its bytes) and their start. */
interface StreamingInput {
  callId: string
  name: string
  chars: number
  head: string
}

/** The call recorded for arguments cut off at the cap while streaming: truncated, refused. */
function oversizedCall(input: StreamingInput): StepCall {
  const name = VALID_TOOL_NAME.test(input.name) ? input.name : INVALID_TOOL_NAME
  return {
    callId: input.callId,
    name,
    args: { _truncated: `arguments over the ${MAX_TOOL_ARGS_BYTES}-byte cap; the response was cut at ${input.chars} characters`, _head: detach(input.head) },
    refusal:
      `Error: the arguments of this ${name} call grew past the ${MAX_TOOL_ARGS_BYTES}-byte cap (the response was cut at ` +
      `${input.chars} characters); it was not run and its arguments were dropped. ${SPLIT_ADVICE}`
  }
}

/** The stand-in call recorded for a response the SDK rejected, with its error result. */
function malformedCall(err: InvalidResponseDataError, mode: ModeState): StepCall {
  return {
    callId: `malformed_${randomUUID()}`,
    name: INVALID_TOOL_NAME,
    args: {},
    refusal:
      `Error: your last response had a malformed tool call (${err.message.slice(0, 200)}); it was not run. ` +
      `Call tools by their exact names. Tools available now: ${offeredTools(mode.mode, mode.lock, mode.goalActive).join(', ')}.`
  }
}

function isUnparseable(input: unknown): boolean {
  if (typeof input !== 'string') return false
  try {
    JSON.parse(input)
    return false
  } catch {
    return true // the parse failure is the answer
  }
}

async function runCall(deps: TurnDeps, call: StepCall, guard: LoopGuard): Promise<void> {
  const { turnId, signal } = deps
  const started = Date.now()
  deps.emit({ type: 'tool_call_started', turnId, callId: call.callId, name: call.name, args: call.args })
  if (call.refusal) {
    finishCall(deps, call, guard, true, call.refusal)
    return
  }
  let output: string
  let isError: boolean
  const partial = new OutputTail()
  // the bounded output kept with the session (tool_call_finished.output) for reloads and resumes
  const kept = new OutputTail(KEPT_OUTPUT_EDGE_CHARS)
  const keptOutput = (): { output?: string } => {
    const text = kept.text()
    return text === '' ? {} : { output: text }
  }
  try {
    // checked against the mode and lock in force now, not when the model asked
    const mode = { mode: deps.getMode(), lock: deps.getLock?.() ?? null, goalActive: deps.getGoalActive?.() ?? false }
    // the guest is attached (and awaited) by dispatch, only for a valid call of a tool that needs it
    const ctx = {
      getGuest: () => deps.getGuest(),
      signal,
      session: deps.session,
      emitOutput: (stream: 'stdout' | 'stderr', chunk: string) => {
        partial.add(chunk)
        kept.add(chunk)
        deps.emit({ type: 'tool_output', turnId, callId: call.callId, stream, chunk })
      },
      ...(deps.approvals ? { approve: (c: ToolCall) => deps.approvals!.check(c, turnId, signal) } : {})
    }
    ;({ output, isError } = await dispatchToolCall(call, mode, deps.catalog, ctx, call.invalidReason))
  } catch (err) {
    if (isAbortError(err, signal)) {
      deps.emit({ type: 'tool_call_finished', turnId, callId: call.callId, name: call.name, isError: true, result: interruptedResult(partial), ...keptOutput() })
      return
    }
    const message = err instanceof Error ? err.message : String(err)
    ;(deps.logger ?? NOOP_LOGGER).error('tool call failed; the turn ends', { turnId, callId: call.callId, tool: call.name, ...errorFields(err) })
    deps.emit({ type: 'tool_call_finished', turnId, callId: call.callId, name: call.name, isError: true, result: `Error: ${message}`, ...keptOutput() })
    throw err
  }
  deps.logger?.debug('tool call finished', { turnId, callId: call.callId, tool: call.name, isError, ms: Date.now() - started, chars: output.length })
  finishCall(deps, call, guard, isError, output, keptOutput().output)
}

/**
 * Record a call's result, through the loop guard: the 3rd identical failure carries a note to the
 * model, the 5th is recorded and then ends the turn.
 * @throws CortexError('loop_detected') at the 5th identical failure
 */
function finishCall(deps: TurnDeps, call: StepCall, guard: LoopGuard, isError: boolean, result: string, output?: string): void {
  const verdict = guard.record(call.name, call.args, isError, result)
  deps.emit({ type: 'tool_call_finished', turnId: deps.turnId, callId: call.callId, name: call.name, isError, result: result + (verdict.note ?? ''), ...(output === undefined ? {} : { output }) })
  if (verdict.stop) throw verdict.stop
}
