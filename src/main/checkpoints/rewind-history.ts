/**
 * The conversation as the model sees it after rewinds: a `changes_reverted` event with
 * `conversation` hides the turn it names and every event after that turn's user message up to the
 * revert itself (files and conversation go back together, as Claude Code's rewind offers). The log
 * keeps everything; only the history the next model request is built from changes.
 */
import type { SessionEvent } from '../../shared/events'

/**
 * `events` without the parts rewound away (see the module comment); the same array when the
 * session has no conversation rewind.
 */
export function visibleHistory(events: readonly SessionEvent[]): readonly SessionEvent[] {
  if (!events.some((e) => e.type === 'changes_reverted' && e.conversation)) return events
  let out: SessionEvent[] = []
  for (const e of events) {
    if (e.type === 'changes_reverted' && e.conversation) {
      const start = out.findIndex((x) => x.type === 'user_message' && x.turnId === e.turnId)
      if (start >= 0) out = out.slice(0, start)
      continue
    }
    out.push(e)
  }
  return out
}
