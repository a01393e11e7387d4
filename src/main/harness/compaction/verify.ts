/**
 * Verification of a compaction before it is recorded: the context the next request would carry
 * (rebuilt from the log plus the candidate `compaction_finished`, exactly as history.ts will build
 * it) must contain every keep-set item — each kept user message, each todo with its status, each
 * open file's path with its current content, the diff, the goal and plan — and be below the budget.
 */
import type { ModelMessage } from 'ai'
import type { KeepSet } from '../../../shared/compaction'
import type { SessionEvent } from '../../../shared/events'
import { buildModelMessages } from '../history'
import { estimateTokens } from './accounting'
import { todoLine } from './context-text'

/** The outcome: tokens of the new context (messages plus `fixedTokens`) and what is missing or too large. */
export interface Verdict {
  ok: boolean
  tokensAfter: number
  problems: string[]
}

/** All text of `messages` (user/assistant/tool contents, tool-call inputs), joined. */
export function messagesText(messages: readonly ModelMessage[]): string {
  const out: string[] = []
  for (const m of messages) {
    if (typeof m.content === 'string') {
      out.push(m.content)
      continue
    }
    for (const p of m.content) {
      if (p.type === 'text') out.push(p.text)
      else if (p.type === 'tool-call') out.push(JSON.stringify(p.input))
      else if (p.type === 'tool-result') out.push(p.output.type === 'text' || p.output.type === 'error-text' ? p.output.value : JSON.stringify(p.output))
    }
  }
  return out.join('\n')
}

/**
 * Check `candidate` appended to `events`.
 * @param fixedTokens estimated tokens of the system prompt and tools
 * @param budgetTokens the context must stay below this
 * @param beforeTokens when set, the context must also end up smaller than this (a compaction never grows it)
 */
export function verifyCompaction(
  events: readonly SessionEvent[], candidate: Extract<SessionEvent, { type: 'compaction_finished' }>, fixedTokens: number, budgetTokens: number, beforeTokens?: number
): Verdict {
  const text = messagesText(buildModelMessages([...events, candidate]))
  const problems: string[] = []
  const keep: KeepSet = candidate.keep
  keep.userMessages.forEach((m, i) => {
    if (!text.includes(m)) problems.push(`user message ${i + 1} of ${keep.userMessages.length} is missing`)
  })
  for (const t of keep.todos) if (!text.includes(todoLine(t))) problems.push(`todo "${t.content.slice(0, 60)}" (${t.status}) is missing`)
  for (const f of keep.files) if (!text.includes(f.path) || !text.includes(f.content)) problems.push(`open file ${f.path} with its current content is missing`)
  if (keep.diff && !text.includes(keep.diff)) problems.push('the recent diff is missing')
  if (keep.goal && !text.includes(keep.goal)) problems.push('the goal is missing')
  if (keep.plan && !text.includes(keep.plan)) problems.push('the accepted plan is missing')
  const tokensAfter = fixedTokens + estimateTokens(text)
  if (tokensAfter >= budgetTokens) problems.push(`the new context (${tokensAfter} tokens) is not below the budget (${budgetTokens} tokens)`)
  if (beforeTokens !== undefined && tokensAfter >= beforeTokens) problems.push(`the new context (${tokensAfter} tokens) would not be smaller than the current one (${beforeTokens} tokens)`)
  return { ok: problems.length === 0, tokensAfter, problems }
}
