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
  return e.skipped.length ? `${what} · not restored (over the size cap): ${e.skipped.join(', ')}` : what
}
