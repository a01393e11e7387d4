/**
 * The model's Markdown rendered for a terminal (marked + marked-terminal): headings, lists, code
 * blocks with highlighting, links, inline Markdown inside list items too. The text is made terminal-safe first, so only the renderer's
 * own styling reaches the terminal.
 */
import { Marked } from 'marked'
import { markedTerminal } from 'marked-terminal'
import { terminalSafe } from '../terminal-safe'

const renderers = new Map<number, Marked>()

/**
 * Render `markdown` for a terminal `width` columns wide (ANSI-styled text, no trailing newline).
 * Falls back to the plain (terminal-safe) text when rendering fails.
 */
export function renderMarkdown(markdown: string, width: number): string {
  const w = Math.max(20, Math.min(width, 160))
  let m = renderers.get(w)
  if (!m) {
    // marked-terminal's extension object is typed for an older marked; its shape is what Marked#use takes
    m = new Marked(markedTerminal({ width: w, reflowText: true, tab: 2 }) as Parameters<Marked['use']>[0])
    // marked-terminal renders a list item's text token as its raw text, so `- **bold** and `code``
    // printed its asterisks and backquotes: render the token's inline tokens instead (issue 23)
    m.use({
      renderer: {
        text(token) {
          return 'tokens' in token && token.tokens?.length ? this.parser.parseInline(token.tokens) : false
        }
      }
    })
    renderers.set(w, m)
  }
  const safe = terminalSafe(markdown)
  try {
    return m.parse(safe, { async: false }).replace(/\n+$/, '')
  } catch {
    return safe
  }
}
