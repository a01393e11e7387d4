/**
 * The Terminal tab's "Shell" pane: an interactive shell into the current session's guest (a TTY
 * bash as the repository's owner, in the repository, in the session's own container) shown with
 * xterm.js. Opened when the pane is first shown for a session, resized with the pane, closed when
 * the session changes or the pane goes away; output is written once per animation frame. After the
 * shell ends, a button opens a new one.
 */
import { useEffect, useRef, useState } from 'react'
import { Terminal } from '@xterm/xterm'
import { FitAddon } from '@xterm/addon-fit'
import '@xterm/xterm/css/xterm.css'
import { SHELL_INPUT_MAX_CHARS } from '../../../../shared/shell'
import { useAppStore } from '../../store/app-store'
import { frameWriter } from './xterm-writer'

/** Output kept while openShell's answer is on its way, in characters (a prompt and a motd fit many times). */
const EARLY_OUTPUT_MAX_CHARS = 64 * 1024

type ShellState = { kind: 'none' } | { kind: 'opening' } | { kind: 'open'; shellId: string } | { kind: 'ended'; message: string }

/** The shell pane; `sessionId` null shows a note instead. */
export function ShellPane({ sessionId }: { sessionId: string | null }): React.JSX.Element {
  const box = useRef<HTMLDivElement>(null)
  const [state, setState] = useState<ShellState>({ kind: 'none' })
  const [generation, setGeneration] = useState(0)

  useEffect(() => {
    if (!box.current || !sessionId) return
    const api = useAppStore.getState().handle.api
    const terminal = new Terminal({ convertEol: false, cursorBlink: true, fontSize: 12, scrollback: 5000, theme: { background: '#0f1115' } })
    const fit = new FitAddon()
    terminal.loadAddon(fit)
    terminal.open(box.current)
    try {
      fit.fit()
    } catch {
      // not laid out yet: the observer fits it
    }
    const writer = frameWriter(terminal)
    let shellId: string | null = null
    let disposed = false
    setState({ kind: 'opening' })

    // output can arrive before openShell's answer names the shell (bash prints its prompt at once):
    // keep it, bounded, until the id is known, then write the id's share first
    let early: Array<{ shellId: string; data: string }> = []
    let earlyChars = 0
    const offEvents = api.onEvent((envelope) => {
      const e = envelope.event
      if (envelope.sessionId !== sessionId) return
      if (shellId === null) {
        if (e.type === 'shell_output' && !disposed && earlyChars < EARLY_OUTPUT_MAX_CHARS) {
          early.push({ shellId: e.shellId, data: e.data })
          earlyChars += e.data.length
        }
        return
      }
      if (e.type === 'shell_output' && e.shellId === shellId) writer.write(e.data)
      if (e.type === 'shell_exited' && e.shellId === shellId) {
        writer.write(`\r\n\x1b[2m[shell ended${e.exitCode === null ? '' : ` with code ${e.exitCode}`}]\x1b[0m\r\n`)
        shellId = null
        setState({ kind: 'ended', message: 'The shell ended.' })
      }
    })
    const input = terminal.onData((data) => {
      if (shellId === null) return
      for (let i = 0; i < data.length; i += SHELL_INPUT_MAX_CHARS) void api.shellInput({ shellId, data: data.slice(i, i + SHELL_INPUT_MAX_CHARS) }).catch(() => undefined)
    })
    let resizeTimer: ReturnType<typeof setTimeout> | undefined
    const sizeChange = terminal.onResize(({ cols, rows }) => {
      clearTimeout(resizeTimer)
      // one request per settled size, not per pixel of a drag
      resizeTimer = setTimeout(() => {
        if (shellId !== null) void api.resizeShell({ shellId, cols, rows }).catch(() => undefined)
      }, 80)
    })
    const observer = new ResizeObserver(() => {
      try {
        fit.fit()
      } catch {
        // hidden: keeps its last size
      }
    })
    observer.observe(box.current)

    api
      .openShell({ sessionId, cols: Math.max(2, terminal.cols), rows: Math.max(1, terminal.rows) })
      .then(({ shellId: id }) => {
        if (disposed) return void api.closeShell({ shellId: id }).catch(() => undefined)
        shellId = id
        for (const o of early) if (o.shellId === id) writer.write(o.data)
        early = []
        setState({ kind: 'open', shellId: id })
        terminal.focus()
      })
      .catch((err: unknown) => {
        if (disposed) return
        const message = err instanceof Error ? err.message : String(err)
        setState({ kind: 'ended', message: `Could not open a shell: ${message}` })
      })

    return () => {
      disposed = true
      if (shellId !== null) void api.closeShell({ shellId }).catch(() => undefined)
      clearTimeout(resizeTimer)
      offEvents()
      input.dispose()
      sizeChange.dispose()
      observer.disconnect()
      writer.dispose()
      terminal.dispose()
    }
  }, [sessionId, generation])

  if (!sessionId) {
    return <div className="terminal-empty">Open a session to get a shell in its guest.</div>
  }
  return (
    <>
      <div className="terminal shell-terminal" data-testid="shell-terminal" data-shell-state={state.kind} ref={box} />
      {state.kind === 'opening' && <div className="terminal-empty">Opening a shell in the guest…</div>}
      {state.kind === 'ended' && (
        <div className="shell-ended" role="status">
          {state.message}{' '}
          <button className="link" data-testid="shell-restart" onClick={() => setGeneration((g) => g + 1)}>
            Open a new shell
          </button>
        </div>
      )}
    </>
  )
}
