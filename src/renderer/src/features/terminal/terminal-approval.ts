/**
 * The Terminal pane's lines for a bash command that waits for approval (issue 23, item 7): the
 * pane writes `$ command` when the call starts, which read as if it were running while it waited
 * for the user. After that line it now says the command waits and has not run, and then how the
 * wait ended (allowed: running; denied, stopped or withdrawn: not run). Pure; used by the reducer.
 */
import type { SessionEvent } from '../../../../shared/events'

type ApprovalEvent = Extract<SessionEvent, { type: 'approval_requested' | 'approval_resolved' | 'approval_policy_changed' }>

/** Text the terminal shows while a command waits for approval (after its `$ command` line). */
export const WAITING_LINE = '[waiting for your approval: not run yet]'

const ENDED: Record<string, string> = {
  allowed: '\x1b[2m[allowed: running]\x1b[0m\r\n',
  denied: '\x1b[33m[denied: not run]\x1b[0m\r\n',
  cancelled: '\x1b[33m[stopped while waiting: not run]\x1b[0m\r\n',
  withdrawn: '\x1b[33m[withdrawn by a mode switch: not run]\x1b[0m\r\n'
}

/**
 * The terminal text an approval event adds, or null (not a bash call, or a rule decided it).
 * @param items the session's timeline rows before the event (tool rows and approval cards are read)
 */
export function approvalTerminalText(event: ApprovalEvent, items: readonly { kind: string }[]): string | null {
  if (event.type === 'approval_requested') return event.tool === 'bash' ? `\x1b[33m${WAITING_LINE}\x1b[0m\r\n` : null
  if (event.type !== 'approval_resolved' || !event.requestId) return null
  const card = items.find((it) => it.kind === 'approval' && (it as { requestId?: string }).requestId === event.requestId) as { tool?: string } | undefined
  return card?.tool === 'bash' ? (ENDED[event.outcome] ?? null) : null
}
