/**
 * Call collection: how one streamed tool call becomes the call the loop keeps — arguments over the
 * cap truncated and refused, invalid names refused by a quoted cut, unparseable arguments marked —
 * and the stand-in calls for arguments cut while streaming and for responses the SDK rejected.
 */
import { randomUUID } from 'node:crypto'
import type { InvalidResponseDataError } from 'ai'
import { detach } from '../../shared/tool-args'
import type { ToolCall } from '../../shared/events'
import { offeredTools } from '../../shared/modes'
import { INVALID_TOOL_NAME, MAX_TOOL_ARGS_BYTES, TRUNCATED_ARGS_HEAD_CHARS, VALID_TOOL_NAME, capToolArgs } from './history'
import type { ModeState } from './tool-dispatch'

/** A call as one model step produced it: `refusal` is a complete error result given without dispatching; `invalidReason` is refused by dispatch. */
export interface StepCall extends ToolCall {
  invalidReason?: string
  /** A complete error result given without dispatching (over-cap arguments, invalid name). */
  refusal?: string
}

/** A tool call whose arguments are still streaming: `chars` so far (UTF-16 units, at most its bytes) and their start. */
export interface StreamingInput {
  callId: string
  name: string
  chars: number
  head: string
}

/** How many characters of an invalid tool name are quoted back to the model. */
const QUOTED_NAME_CHARS = 80

/** What a refused over-cap call tells the model to do instead. */
const SPLIT_ADVICE = 'Split the work into smaller calls (for a large file, write it in parts with several edit_file calls, or generate it with a bash command).'

/**
 * One streamed tool call as the loop keeps it: arguments over {@link MAX_TOOL_ARGS_BYTES} are
 * replaced by their truncated form (so the log and every later request stay small) and refused;
 * a name no provider would accept back (empty, `../x`, kilobytes of junk) is refused by a quoted cut.
 */
export function toStepCall(part: { toolCallId: string; toolName: string; input: unknown; invalid?: boolean }, mode: ModeState): StepCall {
  const capped = capToolArgs(part.input)
  const call: StepCall = { callId: part.toolCallId, name: part.toolName, args: capped.args }
  if (!VALID_TOOL_NAME.test(part.toolName)) {
    const quoted = JSON.stringify(part.toolName.slice(0, QUOTED_NAME_CHARS)) + (part.toolName.length > QUOTED_NAME_CHARS ? '…' : '')
    call.name = detach(part.toolName.slice(0, QUOTED_NAME_CHARS))
    call.refusal =
      `Error: tool ${quoted} does not exist: it is not a valid tool name (1-64 letters, digits, _ or -); it was not run. ` +
      `Tools available now: ${offeredTools(mode.mode, mode.lock, mode.goalActive, mode.extras).join(', ')}.`
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

/** Count a streamed argument delta; returns true when the call just went over the cap. */
export function addInputDelta(input: StreamingInput, delta: string): boolean {
  const before = input.chars
  input.chars += delta.length
  if (input.head.length < TRUNCATED_ARGS_HEAD_CHARS) input.head += delta.slice(0, TRUNCATED_ARGS_HEAD_CHARS - input.head.length)
  return before <= MAX_TOOL_ARGS_BYTES && input.chars > MAX_TOOL_ARGS_BYTES
}

/** The call recorded for arguments cut off at the cap while streaming: truncated, refused. */
export function oversizedCall(input: StreamingInput): StepCall {
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
export function malformedCall(err: InvalidResponseDataError, mode: ModeState): StepCall {
  return {
    callId: `malformed_${randomUUID()}`,
    name: INVALID_TOOL_NAME,
    args: {},
    refusal:
      `Error: your last response had a malformed tool call (${err.message.slice(0, 200)}); it was not run. ` +
      `Call tools by their exact names. Tools available now: ${offeredTools(mode.mode, mode.lock, mode.goalActive, mode.extras).join(', ')}.`
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
