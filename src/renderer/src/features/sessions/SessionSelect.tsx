/**
 * Switch between the open sessions of this process (listSessions, refreshed on connect and on
 * open), and close the one on screen. Hidden until a session exists.
 */
import { useAppStore } from '../../store/app-store'

function basename(path: string): string {
  return path.split('/').filter(Boolean).pop() ?? path
}

/** A session switcher with a Close button. */
export function SessionSelect(): React.JSX.Element | null {
  const sessions = useAppStore((s) => s.sessions)
  const currentId = useAppStore((s) => s.currentId)
  const select = useAppStore((s) => s.selectSession)
  const closeCurrent = useAppStore((s) => s.closeCurrent)
  if (sessions.length === 0) return null
  return (
    <span className="session-select">
      <select
        data-testid="session-select"
        aria-label="Session"
        value={currentId ?? ''}
        onChange={(e) => select(e.target.value)}
      >
        {currentId === null && <option value="">Pick a session…</option>}
        {sessions.map((s) => (
          <option key={s.id} value={s.id} title={s.repo}>
            {basename(s.repo)} · {s.id}
          </option>
        ))}
      </select>
      {currentId && (
        <button data-testid="session-close" onClick={() => void closeCurrent()} title="Close this session and remove its guest">
          Close
        </button>
      )}
    </span>
  )
}
