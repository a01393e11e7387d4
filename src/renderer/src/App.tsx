/**
 * The app shell: a header (repository picker, model in use, guest status, connection), then three
 * resizable, collapsible columns (features/layout/SplitLayout.tsx): the stored sessions, the
 * timeline with the composer beneath it, and a side panel with tabs for the files, the terminal,
 * the plan, the todos, the changes and the approvals (until the user picks a tab it shows the plan,
 * else the todos, else the terminal). A folder dropped anywhere opens a session on it. Request
 * errors show in a dismissible banner. A browser page without a valid token shows what to do.
 */
import { lazy, useEffect, useState } from 'react'
import { LazyPart } from './features/layout/LazyPart'
import { ChangesPanel } from './features/changes/ChangesPanel'
import { useChangesFocus } from './features/changes/changes-focus'
import { Composer } from './features/composer/Composer'
import { ApprovalBadge, ApprovalSettings } from './features/approvals/ApprovalSettings'
import { LockBar } from './features/plan/LockBar'
import { PlanView } from './features/plan/PlanView'
import { SpecView } from './features/plan/SpecView'
import { FilesPanel } from './features/files/FilesPanel'
import { useFilesStore } from './features/files/files-store'
import { SplitLayout } from './features/layout/SplitLayout'
import { TokenPage } from './features/layout/TokenPage'
import { windowDrop } from './features/sessions/drop-zone'
import { RepoPicker } from './features/sessions/RepoPicker'
import { SessionsSidebar } from './features/sessions/SessionsSidebar'
import { ModelBadge } from './features/sessions/ModelBadge'
import { TerminalPane } from './features/terminal/TerminalPane'
import { Timeline } from './features/timeline/Timeline'
import { TrustCard } from './features/trust/TrustCard'
import { appAdvice } from './features/timeline/host-advice'
import { TodoList } from './features/todos/TodoList'
import { useAppStore, useCurrentView } from './store/app-store'

// The settings dialog loads on demand (its own chunk): the first screen does not show it.
const SettingsDialog = lazy(() => import('./features/settings/SettingsDialog').then((m) => ({ default: m.SettingsDialog })))

type Tab = 'plan' | 'todos' | 'terminal' | 'files' | 'approvals' | 'changes'
const CONNECTION_LABELS: Record<string, string> = { open: 'connected', connecting: 'connecting…', closed: 'disconnected', unauthorized: 'token refused' }
const CONNECTION_TITLES: Record<string, string> = {
  open: 'Connected to the Cortex session service',
  connecting: 'Connecting to the Cortex session service…',
  closed: 'Not connected to the Cortex session service; retrying'
}
const GUEST_LABELS: Record<string, string> = {
  building_image: 'guest: building image…',
  starting: 'guest: starting…',
  ready: 'guest ready',
  stopped: 'guest stopped',
  error: 'guest error'
}
const TABS: { id: Tab; label: string }[] = [
  { id: 'files', label: 'Files' },
  { id: 'terminal', label: 'Terminal' },
  { id: 'plan', label: 'Plan' },
  { id: 'todos', label: 'Todos' },
  { id: 'changes', label: 'Changes' },
  { id: 'approvals', label: 'Approvals' }
]

function GuestBadge(): React.JSX.Element | null {
  const guest = useCurrentView()?.guest
  if (!guest) return null
  return (
    <span className={`badge guest-${guest.state}`} data-testid="guest-status" data-state={guest.state} title={guest.detail}>
      {GUEST_LABELS[guest.state] ?? `guest: ${guest.state}`}
      {/* the image build's latest step (which builder and why first, then its progress) */}
      {guest.state === 'building_image' && guest.detail ? ` ${guest.detail.replace(/^==> /, '').slice(0, 80)}` : null}
    </span>
  )
}

/** The root component. */
export function App(): React.JSX.Element {
  const connection = useAppStore((s) => s.connection)
  const transport = useAppStore((s) => s.handle.transport)
  const error = useAppStore((s) => s.requestError)
  const clearError = useAppStore((s) => s.clearError)
  const fileFocus = useFilesStore((s) => s.focusSeq)
  const view = useCurrentView()
  const running = view?.running ?? false
  // Until the user picks a tab, show the one with content: the plan, else the todos, else the terminal.
  const [picked, setTab] = useState<Tab | null>(null)
  const [settingsOpen, setSettingsOpen] = useState(false)
  const tab: Tab = picked ?? (view?.lock || view?.plan || view?.spec ? 'plan' : view?.todos.length ? 'todos' : 'terminal')

  // a tool row's "view" asks for the Files tab
  useEffect(() => {
    if (fileFocus > 0) setTab('files')
  }, [fileFocus])
  // a turn's "N files changed" link in the timeline asks for the Changes tab
  const changesFocus = useChangesFocus((s) => s.seq)
  useEffect(() => {
    if (changesFocus > 0) setTab('changes')
  }, [changesFocus])

  // the desktop menu's Settings command
  useEffect(() => window.cortexHost?.onMenuCommand?.((c) => c === 'settings' && setSettingsOpen(true)), [])

  if (transport === 'none') return <TokenPage reason="missing" />
  if (connection === 'unauthorized') return <TokenPage reason="stale" />
  return (
    <div className="app" data-testid="app" data-transport={transport} onDragOver={windowDrop.onDragOver} onDrop={windowDrop.onDrop}>
      {/* while disconnected every status badge shows what was last known: grey and marked stale */}
      <header className={connection === 'open' ? 'header' : 'header stale'} data-stale={connection !== 'open'} title={connection === 'open' ? undefined : 'Not connected: the status shown is the last known'}>
        <span className="brand">Cortex Code</span>
        <RepoPicker />
        <ModelBadge />
        <button className="link header-settings" data-testid="open-settings" onClick={() => setSettingsOpen(true)} title="Settings: provider, model, key, guest">
          Settings
        </button>
        <GuestBadge />
        <ApprovalBadge />
        {running && (
          <span className="badge running" data-testid="running">
            running
          </span>
        )}
        <span className={`badge conn-${connection}`} data-testid="connection" data-state={connection} title={CONNECTION_TITLES[connection]}>
          {CONNECTION_LABELS[connection] ?? connection}
        </span>
      </header>
      {error && (
        <div className="banner" data-testid="request-error" role="alert">
          <span>{appAdvice(error)}</span>
          <button className="link" onClick={clearError}>
            dismiss
          </button>
        </div>
      )}
      {settingsOpen && (
        <LazyPart
          what="settings"
          fallback={
            <div className="dialog-backdrop" data-testid="settings-loading">
              <div className="dialog settings">Loading settings…</div>
            </div>
          }
        >
          <SettingsDialog onClose={() => setSettingsOpen(false)} />
        </LazyPart>
      )}
      <SplitLayout
        left={<SessionsSidebar />}
        center={
          <section className="conversation">
            <Timeline />
            <TrustCard />
            <LockBar />
            <Composer />
          </section>
        }
        right={
        <aside className="side">
          <nav className="tabs">
            {TABS.map((t) => (
              <button key={t.id} data-testid={`tab-${t.id}`} className={tab === t.id ? 'active' : ''} onClick={() => setTab(t.id)}>
                {t.label}
              </button>
            ))}
          </nav>
          <div className="tab-body">
            <div hidden={tab !== 'plan'} className="tab-pane">
              <SpecView />
              <PlanView />
            </div>
            <div hidden={tab !== 'approvals'} className="tab-pane">
              <ApprovalSettings />
            </div>
            <div hidden={tab !== 'todos'} className="tab-pane">
              <TodoList />
            </div>
            <div hidden={tab !== 'terminal'} className="tab-pane terminal-pane">
              <TerminalPane />
            </div>
            {tab === 'changes' && (
              <div className="tab-pane">
                <ChangesPanel />
              </div>
            )}
            {tab === 'files' && (
              <div className="tab-pane">
                <FilesPanel />
              </div>
            )}
          </div>
        </aside>
        }
      />
    </div>
  )
}
