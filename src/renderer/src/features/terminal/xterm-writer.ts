/**
 * Writes a stream of text into an xterm.js terminal at most once per animation frame, at most
 * FRAME_WRITE_CAP characters per frame: a burst larger than that keeps only its newest text, after
 * a dim "[… N characters skipped …]" marker, so a flood never blocks the window (the terminal's
 * scrollback is bounded anyway). Used by the interactive shell pane.
 */
import type { Terminal } from '@xterm/xterm'

/** Characters written to xterm per animation frame at most; the rest of a burst is skipped. */
export const FRAME_WRITE_CAP = 64 * 1024

/** A frame-batched writer; `dispose` cancels a pending frame. */
export interface FrameWriter {
  write(text: string): void
  dispose(): void
}

/** Create a writer for `terminal`. */
export function frameWriter(terminal: Pick<Terminal, 'write'>): FrameWriter {
  let parts: string[] = []
  let size = 0
  let skipped = 0
  let frame = 0
  const flush = (): void => {
    frame = 0
    let text = parts.join('')
    parts = []
    size = 0
    if (text.length > FRAME_WRITE_CAP) {
      skipped += text.length - FRAME_WRITE_CAP
      text = text.slice(-FRAME_WRITE_CAP)
    }
    if (skipped > 0) terminal.write(`\r\n\x1b[2m[… ${skipped} characters skipped …]\x1b[0m\r\n`)
    skipped = 0
    terminal.write(text)
  }
  return {
    write(text) {
      parts.push(text)
      size += text.length
      // never hold more than two frames' worth while waiting for the frame
      if (size > 2 * FRAME_WRITE_CAP) {
        const joined = parts.join('')
        skipped += joined.length - FRAME_WRITE_CAP
        parts = [joined.slice(-FRAME_WRITE_CAP)]
        size = FRAME_WRITE_CAP
      }
      if (frame === 0) frame = requestAnimationFrame(flush)
    },
    dispose() {
      if (frame !== 0) cancelAnimationFrame(frame)
      frame = 0
      parts = []
    }
  }
}
