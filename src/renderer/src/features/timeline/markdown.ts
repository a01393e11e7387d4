/**
 * Safe Markdown for model text: `marked` (GFM) turns the text into HTML with raw HTML escaped (it
 * shows as text, never as markup) and images shown as their alt text, then a private DOMPurify
 * instance keeps only an allow-list of formatting tags. Links to http(s) and mailto open outside the
 * app (target="_blank", rel="noopener noreferrer"; Electron's window-open handler decides); every
 * other href (javascript:, data:, relative paths) is removed, so such links render inert.
 */
import DOMPurify from 'dompurify'
import { Marked } from 'marked'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escape `text` for use as HTML text or an attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    // Raw HTML in model text is shown literally, not interpreted.
    html: ({ text }) => escapeHtml(text),
    // No remote or inline images from model text: the alt text stands in.
    image: ({ text }) => (text ? `<em>[image: ${escapeHtml(text)}]</em>` : '<em>[image]</em>')
  }
})

/**
 * Markdown to unsanitized HTML (raw HTML escaped, images replaced). Exported for tests; the UI
 * uses {@link renderMarkdown}.
 */
export function markdownToHtml(text: string): string {
  return marked.parse(text, { async: false }).trim()
}

const ALLOWED_TAGS = [
  'p', 'br', 'strong', 'em', 'del', 's', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'hr',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span'
]
// target and rel are set by the hook after the attribute pass, so they need not be allowed here.
const ALLOWED_ATTR = ['href', 'title', 'start', 'align']
const SAFE_HREF = /^(https?:|mailto:)/i

let purifier: ReturnType<typeof DOMPurify> | undefined

/** A DOMPurify instance of our own (mermaid uses the shared one; our hooks must not touch it). */
function getPurifier(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier
  const p = DOMPurify(window)
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName !== 'A') return
    const href = node.getAttribute('href') ?? ''
    if (SAFE_HREF.test(href.trim())) {
      node.setAttribute('target', '_blank')
      node.setAttribute('rel', 'noopener noreferrer')
      if (!node.hasAttribute('title')) node.setAttribute('title', href)
    } else {
      node.removeAttribute('href')
      if (href) node.setAttribute('title', `link not opened: ${href}`)
    }
  })
  purifier = p
  return p
}

/**
 * Render model text as sanitized HTML, ready for `dangerouslySetInnerHTML`.
 * @param text Markdown as the model wrote it (possibly still streaming)
 * @returns HTML with only formatting tags and outside-opening or inert links
 */
export function renderMarkdown(text: string): string {
  return getPurifier().sanitize(markdownToHtml(text), {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false
  })
}
