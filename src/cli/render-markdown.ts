/**
 * The model's streamed text as Markdown for a terminal (`cortex run` on a TTY): deltas are held until
 * a block ends — a blank line outside a code fence — and each complete block is rendered
 * (marked + marked-terminal, through ./tui/markdown); the rest is rendered when the text ends
 * (a tool call, the end of the turn, any other output). The renderer (marked-terminal, which loads
 * highlight.js: ~250 ms of CPU) is loaded by {@link loadMarkdownRenderer}, only when Markdown is
 * shown, so `cortex run --json` and piped output never load it (ADR 0015).
 */
import type { renderMarkdown as RenderMarkdown } from './tui/markdown'

let renderMarkdown: typeof RenderMarkdown | undefined

/** Load the Markdown renderer; call (and await) it before creating a Markdown stream. Idempotent. */
export async function loadMarkdownRenderer(): Promise<void> {
  renderMarkdown ??= (await import('./tui/markdown')).renderMarkdown
}

/** A Markdown stream writing rendered blocks to `out`, `width` columns wide. */
export interface MarkdownStream {
  /** Add streamed text; complete blocks are written at once. */
  push(text: string): void
  /** Render and write whatever is held (the text ended). */
  flush(): void
  /** Whether text is held (a block still being written). */
  holding(): boolean
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
    // not loaded (a caller that did not await loadMarkdownRenderer): the text as the model wrote it
    out.write(`${renderMarkdown ? renderMarkdown(md, width()) : md}\n\n`)
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
    },
    holding: () => held.trim() !== ''
  }
}
