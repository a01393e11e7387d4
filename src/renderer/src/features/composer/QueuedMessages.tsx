/**
 * Messages typed during a turn, above the composer: each marked "queued" until the model gets it
 * at its next step, with a button that removes it before then (op remove_queued).
 */
import { useAppStore, useCurrentView } from '../../store/app-store'

/** The current session's queued messages; nothing when none is queued. */
export function QueuedMessages(): React.JSX.Element | null {
  const view = useCurrentView()
  const removeQueued = useAppStore((s) => s.removeQueued)
  if (!view || view.queued.length === 0) return null
  return (
    <ul className="queued-messages" data-testid="queued-messages">
      {view.queued.map((q) => (
        <li key={q.queueId} className="queued" data-testid="queued-message" data-queue-id={q.queueId}>
          <span className="queued-badge">queued</span>
          <span className="queued-text">{[q.text, ...(q.images ?? [])].filter(Boolean).join(' ')}</span>
          <button data-testid="remove-queued" title="Remove before the model gets it" aria-label="Remove queued message" onClick={() => void removeQueued(q.queueId)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  )
}
