/**
 * The sessions sidebar: every stored session of the data folder (title from its first message or
 * the name given, repository, mode, last activity), searchable; a click opens it (resumes it in
 * this process and shows its history); rename in place; delete after a confirmation (the service
 * refuses a session open here or elsewhere); Close for a session open in this window. A stored
 * session without a message is not listed unless it is open here (a count says how many).
 */
import { useState } from 'react'
import type { StoredSession } from '../../../../shared/desk'
import { useAppStore } from '../../store/app-store'
import { filterSessions, useSessionsStore } from './sessions-store'

function basename(path: string): string {
  return path.split('/').filter(Boolean).pop() ?? path
}

/** "just now", "5 min ago", "3 h ago", else the date. */
export function relativeTime(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000))
  if (s < 60) return 'just now'
  if (s < 3600) return `${Math.round(s / 60)} min ago`
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`
  return new Date(ms).toLocaleDateString()
}

function SessionItem({ s, current }: { s: StoredSession; current: boolean }): React.JSX.Element {
  const { resume, rename, remove } = useSessionsStore()
  const select = useAppStore((st) => st.selectSession)
  const isLive = useAppStore((st) => st.sessions.some((x) => x.id === s.id))
  const closeCurrent = useAppStore((st) => st.closeCurrent)
  const [editing, setEditing] = useState<string | null>(null)
  const [confirm, setConfirm] = useState(false)
  const open = (): void => {
    if (isLive) select(s.id)
    else void resume(s.id)
  }
  return (
    <li className={`session-item${current ? ' current' : ''}`} data-testid="stored-session" data-session-id={s.id} aria-current={current || undefined}>
      {editing !== null ? (
        <form
          className="session-rename"
          onSubmit={(e) => {
            e.preventDefault()
            void rename(s.id, editing).then((ok) => ok && setEditing(null))
          }}
        >
          <input autoFocus aria-label="Session name" data-testid="session-rename-input" value={editing} onChange={(e) => setEditing(e.target.value)} maxLength={200} />
          <button type="submit" data-testid="session-rename-save">Save</button>
          <button type="button" className="link" onClick={() => setEditing(null)}>cancel</button>
        </form>
      ) : (
        <button className="session-open" data-testid="session-open" onClick={open} title={`${s.repo}\n${s.id}`}>
          <span className="session-title" data-testid="session-title">{s.title || '(no message yet)'}</span>
          <span className="session-meta">
            <span className="session-repo">{basename(s.repo)}</span> · {s.mode} · {relativeTime(s.lastActivity)}
            {isLive && <span className="session-live" title="open in this window"> ●</span>}
          </span>
        </button>
      )}
      {editing === null && !confirm && (
        <span className="session-actions">
          <button className="link" data-testid="session-rename" onClick={() => setEditing(s.title)} title="Rename">
            rename
          </button>
          {current && isLive ? (
            <button className="link" data-testid="session-close" onClick={() => void closeCurrent()} title="Close this session and remove its guest">
              close
            </button>
          ) : (
            <button className="link danger" data-testid="session-delete" onClick={() => setConfirm(true)} title="Delete">
              delete
            </button>
          )}
        </span>
      )}
      {confirm && (
        <span className="session-confirm" role="alertdialog" aria-label="Delete session?">
          Delete this session for good?
          <button className="danger" data-testid="session-delete-confirm" onClick={() => void remove(s.id).then(() => setConfirm(false))}>
            Delete
          </button>
          <button className="link" onClick={() => setConfirm(false)}>keep</button>
        </span>
      )}
    </li>
  )
}

/** The sidebar body. */
export function SessionsSidebar(): React.JSX.Element {
  const { stored, query, setQuery, error } = useSessionsStore()
  const currentId = useAppStore((s) => s.currentId)
  const live = useAppStore((s) => s.sessions)
  // a session nobody wrote in is hidden unless it is open here (issue 23: the list filled with them)
  const worth = stored.filter((s) => s.title || s.id === currentId || live.some((x) => x.id === s.id))
  const hidden = stored.length - worth.length
  const shown = filterSessions(worth, query)
  return (
    <nav className="sessions-sidebar" aria-label="Sessions" data-testid="sessions-sidebar">
      <div className="sidebar-head">
        <span className="sidebar-title">Sessions</span>
        <span className="muted">{worth.length}</span>
      </div>
      <input
        className="session-search"
        type="search"
        data-testid="session-search"
        aria-label="Search sessions"
        placeholder="Search sessions…"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      {error && (
        <div className="sidebar-error" role="alert" data-testid="sessions-error">
          {error}
        </div>
      )}
      <ul className="session-list">
        {shown.map((s) => (
          <SessionItem key={s.id} s={s} current={s.id === currentId} />
        ))}
        {shown.length === 0 && <li className="muted session-none">{worth.length ? 'No session matches.' : 'No stored sessions yet.'}</li>}
      </ul>
      {hidden > 0 && (
        <div className="muted session-hidden" data-testid="sessions-hidden-empty" title="Sessions without a message are not listed; they hold nothing to continue">
          {hidden} empty session{hidden === 1 ? '' : 's'} not shown
        </div>
      )}
    </nav>
  )
}
