/**
 * The last check before every model request: the history must pair each tool call with exactly one
 * result, right after the assistant message that made it. {@link validateHistory} repairs what it
 * safely can (orphan and duplicate results dropped, dangling calls closed as interrupted, results
 * put in call order, repeated call ids renamed) and refuses, with {@link HistoryInvalidError}, a
 * history it cannot repair (a call without an id, tool parts in the wrong role, no user message).
 */
import type { ModelMessage, ToolCallPart, ToolResultPart } from 'ai'
import { CortexError } from '../../shared/errors'

/** Text of the result given to a tool call that never finished. */
export const INTERRUPTED_RESULT = 'Error: interrupted — this tool call did not finish (stopped by the user or the app closed).'

/** A history that cannot be repaired into a valid model request; `code` is `history_invalid`. */
export class HistoryInvalidError extends CortexError {
  /** @param message what is wrong and where (message index) */
  constructor(message: string) {
    super('history_invalid', `the session history cannot be sent to the model: ${message}`)
    this.name = 'HistoryInvalidError'
  }
}

/** Outcome of {@link validateHistory}: the messages to send and one line per repair made (empty when none). */
export interface ValidatedHistory {
  messages: ModelMessage[]
  repairs: string[]
}

/** The tool calls of one assistant message waiting for their results. */
interface OpenStep {
  calls: ToolCallPart[]
  /** Id the model used → id in the repaired history (differs only for a renamed duplicate). */
  ids: Map<string, string>
  results: Map<string, ToolResultPart>
}

const ASSISTANT_PARTS = new Set(['text', 'reasoning', 'file', 'reasoning-file', 'custom'])

/**
 * Check and repair `messages` (not modified; a repaired copy is returned).
 * @throws HistoryInvalidError for a history that cannot be repaired
 */
export function validateHistory(messages: readonly ModelMessage[]): ValidatedHistory {
  const out: ModelMessage[] = []
  const repairs: string[] = []
  const usedIds = new Set<string>()
  let open: OpenStep | null = null
  let users = 0

  const close = (): void => {
    if (!open) return
    const step: OpenStep = open
    open = null
    if (step.calls.length === 0) return
    const content = step.calls.map((call) => {
      const result = step.results.get(call.toolCallId)
      if (result) return result
      repairs.push(`tool call ${call.toolCallId} (${call.toolName}) had no result: closed as interrupted`)
      return interruptedPart(call)
    })
    out.push({ role: 'tool', content })
  }

  messages.forEach((msg, index) => {
    const where = `message ${index} (${String((msg as { role?: unknown }).role)})`
    switch (msg.role) {
      case 'system':
        close()
        out.push(msg)
        return
      case 'user':
        close()
        if (Array.isArray(msg.content)) {
          for (const part of msg.content as Array<{ type: string }>) {
            if (part.type === 'tool-call' || part.type === 'tool-result') throw new HistoryInvalidError(`${where} holds a ${part.type} part`)
          }
        }
        users++
        out.push(msg)
        return
      case 'assistant': {
        close()
        if (typeof msg.content === 'string') {
          out.push(msg)
          return
        }
        const step: OpenStep = { calls: [], ids: new Map(), results: new Map() }
        const content: Exclude<typeof msg.content, string> = []
        for (const part of msg.content) {
          if (part.type === 'tool-call') {
            const call = checkedCall(part, where)
            if (step.ids.has(call.toolCallId)) {
              repairs.push(`${where}: a second tool call with id ${call.toolCallId} was dropped`)
              continue
            }
            let id = call.toolCallId
            for (let k = 2; usedIds.has(id); k++) id = `${call.toolCallId}_${k}`
            if (id !== call.toolCallId) repairs.push(`${where}: tool call id ${call.toolCallId} was used before; renamed ${id}`)
            usedIds.add(id)
            step.ids.set(call.toolCallId, id)
            const renamed: ToolCallPart = { ...call, toolCallId: id }
            step.calls.push(renamed)
            content.push(renamed)
          } else if (ASSISTANT_PARTS.has(part.type)) {
            content.push(part)
          } else {
            throw new HistoryInvalidError(`${where} holds a ${part.type} part`)
          }
        }
        if (content.length === 0) {
          repairs.push(`${where} was empty and was dropped`)
          return
        }
        out.push({ ...msg, content })
        open = step
        return
      }
      case 'tool': {
        for (const part of msg.content as Array<{ type: string }>) {
          if (part.type !== 'tool-result') throw new HistoryInvalidError(`${where} holds a ${part.type} part`)
          const result = part as ToolResultPart
          const step: OpenStep | null = open
          const id = typeof result.toolCallId === 'string' ? step?.ids.get(result.toolCallId) : undefined
          const call = id === undefined ? undefined : step?.calls.find((c) => c.toolCallId === id)
          if (!step || id === undefined || !call) {
            repairs.push(`${where}: result for ${String(result.toolCallId)} answers no call of the step before it: dropped`)
          } else if (step.results.has(id)) {
            repairs.push(`${where}: a second result for ${id} was dropped`)
          } else {
            step.results.set(id, { ...result, toolCallId: id, toolName: call.toolName })
          }
        }
        return
      }
      default:
        throw new HistoryInvalidError(`${where} has an unknown role`)
    }
  })
  close()
  if (users === 0) throw new HistoryInvalidError('it holds no user message')
  return { messages: out, repairs }
}

/** A tool-call part with a usable id and name, or a refusal. */
function checkedCall(part: ToolCallPart, where: string): ToolCallPart {
  if (typeof part.toolCallId !== 'string' || part.toolCallId === '') throw new HistoryInvalidError(`${where} holds a tool call without an id`)
  if (typeof part.toolName !== 'string' || part.toolName === '') throw new HistoryInvalidError(`${where} holds tool call ${part.toolCallId} without a name`)
  return part
}

function interruptedPart(call: ToolCallPart): ToolResultPart {
  return { type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'error-text', value: INTERRUPTED_RESULT } }
}
