/** Timeline text of checkpoint events (src/shared/checkpoints.ts). */
import type { SessionEvent } from '../../../shared/events'

/** The timeline line of a revert or redo: how many files it restored or removed, and what it could not restore. */
export function revertText(e: Extract<SessionEvent, { type: 'changes_reverted' }>): string {
  const n = e.restored.length + e.deleted.length
  const files = `${n} file${n === 1 ? '' : 's'}`
  const what =
    e.scope === 'redo' ? `redone: ${files} put back as they were before the revert`
      : e.scope === 'file' ? `reverted ${e.restored[0] ?? e.deleted[0] ?? 'a file'} to before its turn`
        : e.scope === 'turn' ? `turn undone: ${files} restored`
          : `rewound to before a turn: ${files} restored${e.conversation ? ', and the conversation with them' : ''}`
  return e.skipped.length ? `${what} · not restored (over the size cap, or not a file git can store): ${e.skipped.join(', ')}` : what
}

/** The timeline line of a turn whose changes could not be recorded (no review or undo of that turn), with the reason. */
export function checkpointFailedText(e: Extract<SessionEvent, { type: 'checkpoint_failed' }>): string {
  return `this turn's changes were not recorded${e.stage === 'after' ? ' at its end' : ''} (no review or undo of it): ${e.reason}`
}
