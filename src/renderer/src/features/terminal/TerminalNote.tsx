/**
 * The Terminal tab's notes that need no xterm.js: what shows while the Agent pane has nothing yet,
 * and what stands in while a pane's xterm chunk loads (xterm is loaded on demand, off the entry
 * chunk, so the app shell paints without it).
 */
import { useAppStore } from '../../store/app-store'

/** The Agent pane's note while the session's bash transcript is empty (or there is no session). */
export function TerminalEmptyNote(): React.JSX.Element {
  return (
    <div className="terminal-empty" data-testid="terminal-empty">
      No commands yet. Shell commands the agent runs, and their output, show here.
    </div>
  )
}

/**
 * Stands in for the Agent pane while its xterm chunk loads: the empty note when there is nothing
 * to show (as the loaded pane would), else a short loading line.
 */
export function AgentTerminalLoading(): React.JSX.Element {
  const empty = useAppStore((s) => {
    const log = s.currentId ? s.views[s.currentId]?.terminal : undefined
    return !log || log.end === 0
  })
  return empty ? <TerminalEmptyNote /> : <TerminalLoading />
}

/** A short loading line for a terminal pane whose xterm chunk is on its way. */
export function TerminalLoading(): React.JSX.Element {
  return (
    <div className="terminal-empty" data-testid="terminal-loading">
      Loading terminal…
    </div>
  )
}
