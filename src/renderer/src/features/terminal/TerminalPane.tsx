/**
 * The Terminal tab: two panes behind a small tab bar — "Agent", the session's bash transcript
 * (AgentTerminal), and "Shell", an interactive shell into the session's guest (ShellPane), opened
 * the first time it is shown and kept while the session stays on screen.
 */
import { useState } from 'react'
import { useAppStore } from '../../store/app-store'
import { AgentTerminal } from './AgentTerminal'
import { ShellPane } from './ShellPane'
import './terminal.css'

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
        <AgentTerminal />
      </div>
      <div className="terminal-panel" role="tabpanel" id="terminal-panel-shell" aria-labelledby="terminal-tab-shell" hidden={pane !== 'shell'}>
        {shellShown && <ShellPane sessionId={sessionId} />}
      </div>
    </div>
  )
}
