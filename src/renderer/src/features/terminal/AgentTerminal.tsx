/**
 * The Terminal tab's "Agent" pane: an xterm.js view replaying the session's bash transcript: each bash command as it starts, then
 * its stdout (and stderr in red) as tool_output chunks stream in; after a reload, the output kept
 * with the session. It reads the bounded TerminalLog by offset and writes at most once per
 * animation frame, at most FRAME_WRITE_CAP characters (a flood skips to its newest text with a
 * marker), so a 200 MB flood never stalls the window; xterm keeps a bounded scrollback.
 * Read-only; resizes with its box; a short note stands in while there is nothing to show.
 */
import { useEffect, useRef, useState } from 'react'
import { Terminal } from '@xterm/xterm'
import { FitAddon } from '@xterm/addon-fit'
import '@xterm/xterm/css/xterm.css'
import { useAppStore } from '../../store/app-store'
import type { TerminalLog } from './terminal-log'
import { TerminalEmptyNote } from './TerminalNote'
import { FRAME_WRITE_CAP } from './xterm-writer'

/** Lines xterm keeps above the viewport. */
export const TERMINAL_SCROLLBACK = 5000

/** The agent's terminal: the session's bash transcript, read-only. */
export function AgentTerminal(): React.JSX.Element {
  const box = useRef<HTMLDivElement>(null)
  const [empty, setEmpty] = useState(true)

  useEffect(() => {
    if (!box.current) return
    const terminal = new Terminal({
      convertEol: true,
      disableStdin: true,
      cursorBlink: false,
      fontSize: 12,
      scrollback: TERMINAL_SCROLLBACK,
      theme: { background: '#0f1115' }
    })
    const fit = new FitAddon()
    terminal.loadAddon(fit)
    terminal.open(box.current)
    const observer = new ResizeObserver(() => {
      try {
        fit.fit()
      } catch {
        // not laid out yet
      }
    })
    observer.observe(box.current)

    let shown: TerminalLog | null = null
    let written = 0
    let frame = 0
    const flush = (): void => {
      frame = 0
      const s = useAppStore.getState()
      const log = s.currentId ? (s.views[s.currentId]?.terminal ?? null) : null
      if (log !== shown) {
        terminal.reset()
        shown = log
        written = 0
      }
      if (!log) return setEmpty(true)
      setEmpty(log.end === 0)
      const pending = log.end - written
      if (pending <= 0) return
      const from = pending > FRAME_WRITE_CAP ? log.end - FRAME_WRITE_CAP : written
      const slice = log.since(from)
      const skipped = from - written + slice.dropped
      if (skipped > 0) terminal.write(`\r\n\x1b[2m[… ${skipped} characters skipped …]\x1b[0m\r\n`)
      terminal.write(slice.text)
      written = slice.end
    }
    const schedule = (): void => {
      if (frame === 0) frame = requestAnimationFrame(flush)
    }
    schedule()
    const unsubscribe = useAppStore.subscribe((s, prev) => {
      const view = s.currentId ? s.views[s.currentId] : undefined
      const before = prev.currentId ? prev.views[prev.currentId] : undefined
      if (s.currentId !== prev.currentId || view?.terminalVersion !== before?.terminalVersion || view?.terminal !== before?.terminal) schedule()
    })
    return () => {
      unsubscribe()
      if (frame !== 0) cancelAnimationFrame(frame)
      observer.disconnect()
      terminal.dispose()
    }
  }, [])

  return (
    <>
      <div className="terminal" data-testid="terminal" ref={box} />
      {empty && <TerminalEmptyNote />}
    </>
  )
}
