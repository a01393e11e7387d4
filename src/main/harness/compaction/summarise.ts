/**
 * The summariser: the session's model (or one set for summaries) summarises the part of the history
 * a compaction replaces, in fixed sections. Large tool outputs are elided before the request; a
 * transcript still too large for one request is summarised in chunks, each chunk's summary carried
 * into the next. One call per chunk, no retries (the caller allows at most two attempts), a
 * deadline on each, and Stop ends it.
 */
import { streamText, type LanguageModel, type LanguageModelUsage } from 'ai'
import type { SessionEvent } from '../../../shared/events'
import { imageLine } from '../../../shared/images'
import { estimateTokens } from './accounting'

/** The sections every summary has, in order. */
export const SUMMARY_SECTIONS = ['Intent', 'Key decisions', 'Files and what changed', 'Errors and fixes', 'Failed attempts', 'What remains', 'Next step'] as const

/** Tool results longer than this (characters) are elided to their head and tail in the transcript. */
export const ELIDE_OVER_CHARS = 2000
const ELIDE_HEAD = 800
const ELIDE_TAIL = 400
/** Deadline of one summariser call (ms). */
export const SUMMARY_TIMEOUT_MS = 180_000

/** One summariser request: the transcript (already elided), the earlier summary (chunks), the output cap and focus. */
export interface SummaryRequest {
  model: LanguageModel
  signal: AbortSignal
  /** Transcript text of the part being summarised. */
  transcript: string
  /** Most tokens the summary may have. */
  maxTokens: number
  /** What the user asked the summary to keep in detail (`/compact FOCUS`). */
  focus?: string
  /** Tokens one request may carry (the transcript is chunked above it). */
  inputBudget: number
  /** Deadline (ms) of each call (default {@link SUMMARY_TIMEOUT_MS}). */
  timeoutMs?: number
  /** Called before each call (counts calls). */
  onCall?(): void
  /** Called with the tokens each call reported (the caller records a `usage` event with `purpose: 'summary'`). */
  onUsage?(usage: LanguageModelUsage): void
}

/** `text` with its middle elided past {@link ELIDE_OVER_CHARS} characters. */
export function elide(text: string): string {
  if (text.length <= ELIDE_OVER_CHARS) return text
  return `${text.slice(0, ELIDE_HEAD)}\n[… ${text.length - ELIDE_HEAD - ELIDE_TAIL} characters elided …]\n${text.slice(-ELIDE_TAIL)}`
}

/** The transcript of `events` for the summariser: messages, tool calls and elided results; `lead` (an earlier compacted context) first. */
export function transcriptOf(events: readonly SessionEvent[], lead?: string): string {
  const lines: string[] = lead ? [`[earlier compacted context]\n${lead}`] : []
  for (const e of events) {
    if (e.type === 'user_message') lines.push(`USER: ${[e.text, ...(e.images ?? []).map(imageLine)].filter(Boolean).join(' ')}`)
    else if (e.type === 'assistant_message') {
      if (e.text) lines.push(`ASSISTANT: ${elide(e.text)}`)
      for (const c of e.toolCalls) lines.push(`TOOL CALL ${c.name} ${elide(JSON.stringify(c.args ?? {}))}`)
    } else if (e.type === 'tool_call_finished') lines.push(`TOOL RESULT ${e.name}${e.isError ? ' (error)' : ''}: ${elide(e.result)}${e.image ? ` ${imageLine(e.image)}` : ''}`)
  }
  return lines.join('\n')
}

/** The instructions of a summary request. */
function instructions(maxTokens: number, focus: string | undefined, earlier: string | undefined): string {
  return [
    'You are summarising the earlier part of a coding session so the agent can continue without it.',
    `Write at most about ${maxTokens} tokens of Markdown with exactly these sections, each a "## " heading, in this order: ${SUMMARY_SECTIONS.join('; ')}.`,
    'Be concrete: file paths, function names, commands, error messages, decisions and why. Do not invent progress: say what is NOT done.',
    "The user's messages, todos, open files and recent diff are kept separately and verbatim; do not copy them, refer to them.",
    ...(focus ? [`The user asks the summary to focus on: ${focus}`] : []),
    ...(earlier ? [`A summary of the part before this transcript follows; merge it into yours:\n${earlier}`] : [])
  ].join('\n')
}

/** Split `text` at line boundaries into pieces of at most `maxChars` (a longer line is cut). */
export function chunks(text: string, maxChars: number): string[] {
  const out: string[] = []
  let cur = ''
  for (const line of text.split('\n')) {
    const piece = line.length > maxChars ? `${line.slice(0, maxChars - 20)} […cut]` : line
    if (cur.length + piece.length + 1 > maxChars && cur) {
      out.push(cur)
      cur = ''
    }
    cur += (cur ? '\n' : '') + piece
  }
  if (cur) out.push(cur)
  return out
}

/** One summariser call: the text of the answer. @throws the provider error, a timeout, or the abort reason on Stop */
async function callOnce(req: SummaryRequest, transcript: string, earlier: string | undefined): Promise<string> {
  req.onCall?.()
  const deadline = AbortSignal.timeout(req.timeoutMs ?? SUMMARY_TIMEOUT_MS)
  const result = streamText({
    model: req.model,
    system: instructions(req.maxTokens, req.focus, earlier),
    messages: [{ role: 'user', content: `Transcript to summarise:\n\n${transcript}` }],
    abortSignal: AbortSignal.any([req.signal, deadline]),
    maxRetries: 0,
    maxOutputTokens: req.maxTokens,
    onError: () => undefined
  })
  let text = ''
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') text += part.text
    else if (part.type === 'finish-step') req.onUsage?.(part.usage)
    else if (part.type === 'error') throw part.error
    else if (part.type === 'abort') break
  }
  if (req.signal.aborted) throw req.signal.reason
  if (deadline.aborted) throw new Error(`the summariser sent no complete answer within ${Math.round((req.timeoutMs ?? SUMMARY_TIMEOUT_MS) / 1000)} s`)
  return text.trim()
}

/**
 * Summarise `req.transcript`: one call when it fits `inputBudget` tokens, otherwise one call per chunk
 * in order (each gets the summary so far).
 * @returns the summary (Markdown with {@link SUMMARY_SECTIONS})
 * @throws the provider's error, a timeout error, an empty answer, or the abort reason on Stop
 */
export async function summarise(req: SummaryRequest): Promise<string> {
  const maxChars = Math.max(4000, req.inputBudget * 4)
  const parts = estimateTokens(req.transcript) <= req.inputBudget ? [req.transcript] : chunks(req.transcript, maxChars)
  let summary: string | undefined
  for (const part of parts) summary = await callOnce(req, part, summary)
  if (!summary) throw new Error('the summariser answered with no text')
  return summary
}
