/**
 * An xterm.js pane replaying the session's bash transcript: each bash command as it starts, then
 * its stdout (and stderr in red) as tool_output chunks stream in. Read-only; resizes with its box;
 * a short note stands in while there is nothing to show.
 */
import { useEffect, useRef } from 'react'
import { Terminal } from '@xterm/xterm'
import { FitAddon } from '@xterm/addon-fit'
import '@xterm/xterm/css/xterm.css'
import { useCurrentView } from '../../store/app-store'

/** The terminal panel. */
export function TerminalPane(): React.JSX.Element {
  const view = useCurrentView()
  const box = useRef<HTMLDivElement>(null)
  const term = useRef<{ terminal: Terminal; fit: FitAddon } | null>(null)
  const written = useRef<{ sessionId: string | null; count: number }>({ sessionId: null, count: 0 })

  useEffect(() => {
    if (!box.current) return
    const terminal = new Terminal({
      convertEol: true,
      disableStdin: true,
      cursorBlink: false,
      fontSize: 12,
      scrollback: 5000,
      theme: { background: '#0f1115' }
    })
    const fit = new FitAddon()
    terminal.loadAddon(fit)
    terminal.open(box.current)
    term.current = { terminal, fit }
    const observer = new ResizeObserver(() => {
      try {
        fit.fit()
      } catch {
        // not laid out yet
      }
    })
    observer.observe(box.current)
    return () => {
      observer.disconnect()
      terminal.dispose()
      term.current = null
      written.current = { sessionId: null, count: 0 }
    }
  }, [])

  const chunks = view?.terminal
  const sessionId = view?.sessionId ?? null
  useEffect(() => {
    const t = term.current
    if (!t) return
    if (written.current.sessionId !== sessionId) {
      t.terminal.reset()
      written.current = { sessionId, count: 0 }
    }
    const list = chunks ?? []
    for (let i = written.current.count; i < list.length; i++) t.terminal.write(list[i] ?? '')
    written.current.count = list.length
  }, [chunks, sessionId])

  return (
    <>
      <div className="terminal" data-testid="terminal" ref={box} />
      {(chunks?.length ?? 0) === 0 && (
        <div className="terminal-empty" data-testid="terminal-empty">
          No commands yet. Shell commands the agent runs, and their output, show here.
        </div>
      )}
    </>
  )
}
