/**
 * The model's streamed text as Markdown for a terminal (`cortex run` on a TTY): deltas are held until
 * a block ends — a blank line outside a code fence — and each complete block is rendered
 * (marked + marked-terminal, through ./tui/markdown); the rest is rendered when the text ends
 * (a tool call, the end of the turn, any other output).
 */
import { renderMarkdown } from './tui/markdown'

/** A Markdown stream writing rendered blocks to `out`, `width` columns wide. */
export interface MarkdownStream {
  /** Add streamed text; complete blocks are written at once. */
  push(text: string): void
  /** Render and write whatever is held (the text ended). */
  flush(): void
}

/**
 * Where the held text can be cut: just after the last blank line that is outside a code fence, or -1.
 * @param text the held text
 */
export function blockEnd(text: string): number {
  let inFence = false
  let cut = -1
  let pos = 0
  const lines = text.split('\n')
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!
    pos += line.length + 1
    if (/^\s{0,3}(```|~~~)/.test(line)) inFence = !inFence
    else if (!inFence && line.trim() === '' && i > 0) cut = pos
  }
  return cut
}

/** Create a Markdown stream (the text is made terminal-safe by the renderer before rendering). */
export function createMarkdownStream(out: NodeJS.WritableStream, width: () => number): MarkdownStream {
  let held = ''
  const write = (md: string): void => {
    if (md.trim() === '') return
    out.write(`${renderMarkdown(md, width())}\n\n`)
  }
  return {
    push(text) {
      held += text
      const cut = blockEnd(held)
      if (cut <= 0) return
      write(held.slice(0, cut))
      held = held.slice(cut)
    },
    flush() {
      const md = held
      held = ''
      write(md)
    }
  }
}
