/**
 * The Terminal tab: two panes behind a small tab bar — "Agent", the session's bash transcript
 * (AgentTerminal), and "Shell", an interactive shell into the session's guest (ShellPane), opened
 * the first time it is shown and kept while the session stays on screen. Both panes, and xterm.js
 * with them, load on demand (their own chunk, off the entry chunk); a note stands in meanwhile.
 * The Agent pane mounts only once the current session's view is there and the page is next idle:
 * loading xterm.js and opening a terminal (0.1–0.3 s of main thread) used to run before the
 * history arrived, delaying the timeline's first paint (issue 24, ADR 0015).
 */
import { lazy, useEffect, useState } from 'react'
import { LazyPart } from '../layout/LazyPart'
import { useAppStore } from '../../store/app-store'
import { AgentTerminalLoading, TerminalLoading } from './TerminalNote'
import './terminal.css'

const AgentTerminal = lazy(() => import('./AgentTerminal').then((m) => ({ default: m.AgentTerminal })))
const ShellPane = lazy(() => import('./ShellPane').then((m) => ({ default: m.ShellPane })))

type Pane = 'agent' | 'shell'

/** Longest wait (ms) for an idle moment before the Agent pane mounts anyway. */
const AGENT_MOUNT_TIMEOUT_MS = 2000

/** Run `fn` at the page's next idle moment (at most `timeout` ms later); returns a cancel function. */
function whenIdle(fn: () => void, timeout: number): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const id = window.requestIdleCallback(fn, { timeout })
    return () => window.cancelIdleCallback(id)
  }
  const id = window.setTimeout(fn, 0)
  return () => window.clearTimeout(id)
}

/**
 * Whether the Agent pane may mount: after the current session's view exists (its history replayed)
 * and the page then went idle (its rows painted); stays true once set.
 */
function useAgentPaneReady(): boolean {
  const viewThere = useAppStore((s) => s.currentId !== null && s.views[s.currentId] !== undefined)
  const [ready, setReady] = useState(false)
  useEffect(() => {
    if (ready || !viewThere) return
    return whenIdle(() => setReady(true), AGENT_MOUNT_TIMEOUT_MS)
  }, [ready, viewThere])
  return ready
}

/** The terminal panel. */
export function TerminalPane(): React.JSX.Element {
  const [pane, setPane] = useState<Pane>('agent')
  const [shellShown, setShellShown] = useState(false)
  const sessionId = useAppStore((s) => s.currentId)
  const agentReady = useAgentPaneReady()
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
        {agentReady ? (
          <LazyPart what="terminal" fallback={<AgentTerminalLoading />}>
            <AgentTerminal />
          </LazyPart>
        ) : (
          <AgentTerminalLoading />
        )}
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
