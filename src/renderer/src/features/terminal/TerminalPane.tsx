/**
 * The Terminal tab: two panes behind a small tab bar — "Agent", the session's bash transcript
 * (AgentTerminal), and "Shell", an interactive shell into the session's guest (ShellPane), opened
 * the first time it is shown and kept while the session stays on screen. Both panes, and xterm.js
 * with them, load on demand (their own chunk, off the entry chunk); a note stands in meanwhile.
 */
import { lazy, useState } from 'react'
import { LazyPart } from '../layout/LazyPart'
import { useAppStore } from '../../store/app-store'
import { AgentTerminalLoading, TerminalLoading } from './TerminalNote'
import './terminal.css'

const AgentTerminal = lazy(() => import('./AgentTerminal').then((m) => ({ default: m.AgentTerminal })))
const ShellPane = lazy(() => import('./ShellPane').then((m) => ({ default: m.ShellPane })))

type Pane = 'agent' | 'shell'

/** The terminal panel. */
export function TerminalPane(): React.JSX.Element {
  const [pane, setPane] = useState<Pane>('agent')
  const [shellShown, setShellShown] = useState(false)
  const sessionId = useAppStore((s) => s.currentId)
  const pick = (p: Pane): void => {
    setPane(p)
    if (p === 'shell') setShellShown(true)
  }
  return (
    <div className="terminal-tabs-root">
      <div className="terminal-tabs" role="tablist" aria-label="Terminals">
        {(['agent', 'shell'] as const).map((p) => (
          <button key={p} role="tab" id={`terminal-tab-${p}`} aria-selected={pane === p} aria-controls={`terminal-panel-${p}`} className={pane === p ? 'active' : ''} data-testid={`terminal-tab-${p}`} onClick={() => pick(p)}>
            {p === 'agent' ? 'Agent' : 'Shell'}
          </button>
        ))}
      </div>
      <div className="terminal-panel" role="tabpanel" id="terminal-panel-agent" aria-labelledby="terminal-tab-agent" hidden={pane !== 'agent'}>
        <LazyPart what="terminal" fallback={<AgentTerminalLoading />}>
          <AgentTerminal />
        </LazyPart>
      </div>
      <div className="terminal-panel" role="tabpanel" id="terminal-panel-shell" aria-labelledby="terminal-tab-shell" hidden={pane !== 'shell'}>
        {shellShown && (
          <LazyPart what="terminal" fallback={<TerminalLoading />}>
            <ShellPane sessionId={sessionId} />
          </LazyPart>
        )}
      </div>
    </div>
  )
}
