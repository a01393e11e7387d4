/**
 * Timeline texts the session reducer (./reduce-event.ts) and the timeline rows show: a goal's
 * change, a resume, a turn's footer, and the model a session recorded.
 */
import type { SessionEvent } from '../../../shared/events'
import type { GoalUpdated } from '../../../shared/goal'
import { formatUsage, type TurnUsage } from '../../../shared/usage'

/** The provider and model an opened or resumed session recorded, or null. */
export function modelOf(e: { provider?: string; model?: string }): { provider: string; model: string } | null {
  return e.provider && e.model ? { provider: e.provider, model: e.model } : null
}

/** The timeline text of a goal's change: `goal set: TEXT (8 turns)`, or `goal met · 2/8 — evidence`. */
export function goalNotice(e: GoalUpdated): string {
  if (e.state === 'active' && e.turnsUsed === 0) return `goal set: ${e.goal.text} (${e.turnBudget} turns${e.tokenBudget ? `, ${e.tokenBudget} tokens` : ''})`
  return `goal ${e.state.replace('_', ' ')} · ${e.turnsUsed}/${e.turnBudget}${e.reason ? ` — ${e.reason}` : ''}`
}

/** The timeline text of a resume: what the damaged log lost and what a crash left open, if anything. */
export function resumedText(e: Extract<SessionEvent, { type: 'session_resumed' }>): string {
  const parts = ['session resumed']
  if (e.skipped > 0) parts.push(`${e.skipped} damaged log record${e.skipped === 1 ? '' : 's'} skipped`)
  if (e.interruptedCalls > 0) parts.push(`${e.interruptedCalls} tool call${e.interruptedCalls === 1 ? '' : 's'} left running by a crash closed as interrupted`)
  else if (e.interruptedTurn) parts.push('a turn left open by a crash was ended')
  return parts.join(' · ')
}

/** The footer of a turn: its token totals and cost (see formatUsage), or '' without usage. */
export function turnFooter(usage: TurnUsage | undefined): string {
  return usage ? formatUsage(usage) : ''
}
