/**
 * `cortex accept --resume ID` and `cortex reject --resume ID --feedback TEXT`: answer the plan or
 * spec a stored session's lock holds (issue 23 item 9). They run like `cortex run --resume ID`, but
 * the turn they start is the one the decision starts (accepting switches to Agent and carries the plan
 * out; rejecting sends the feedback), not a new message that would re-plan.
 */
import { CortexError } from '../shared/errors'
import type { Operation, SessionEvent } from '../shared/events'
import type { ModeLock } from '../shared/modes'

/** What the user decided: accept, or reject with feedback for the model. */
export type Decision = { kind: 'accept' } | { kind: 'reject'; feedback: string }

/** The lock in force after `events` (the last `lock_changed`), or null. */
export function lockAfter(events: readonly SessionEvent[]): ModeLock | null {
  let lock: ModeLock | null = null
  for (const e of events) if (e.type === 'lock_changed') lock = e.lock
  return lock
}

/**
 * The operation that answers the lock of session `sessionId`.
 * @throws CortexError('invalid_input') when nothing awaits a decision (no plan or spec is locked)
 */
export function decisionOperation(sessionId: string, events: readonly SessionEvent[], decision: Decision): Operation {
  const lock = lockAfter(events)
  if (!lock) throw new CortexError('invalid_input', `session ${sessionId} has no plan or spec awaiting a decision (see cortex sessions; continue it with cortex run --resume ${sessionId} "<prompt>")`)
  if (decision.kind === 'accept') return { type: lock.kind === 'plan' ? 'accept_plan' : 'accept_spec' }
  return { type: lock.kind === 'plan' ? 'reject_plan' : 'reject_spec', feedback: decision.feedback }
}

/** The line `cortex run` prints under a lock: how to accept or reject it from the shell (and on stdin). */
export function lockHint(lock: ModeLock, sessionId: string): string {
  return `accept: cortex accept --resume ${sessionId} · reject: cortex reject --resume ${sessionId} --feedback "…" (with --input stream-json: {"type":"accept_${lock.kind}"} or {"type":"reject_${lock.kind}","feedback":"…"} on stdin)`
}
