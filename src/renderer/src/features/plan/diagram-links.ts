/**
 * Links in a rendered plan diagram never load in the app's own tab. Mermaid (securityLevel
 * 'strict') already drops click callbacks, but `click A "url"` and `click A href "url"` still become
 * `<a href>` in the SVG, which would replace the Cortex page. Here every link loses its href
 * (and target, and any on* handler); an http(s) address is kept in `data-cortex-href` and opened
 * by {@link openDiagramLink} in a new, opener-less window; anything else (javascript:, data:,
 * relative) is inert, its address shown as a tooltip only.
 */

/** Attribute that keeps a diagram link's http(s) address after its href is removed. */
export const DIAGRAM_HREF_ATTR = 'data-cortex-href'

const SAFE_HREF = /^https?:\/\//i
const XLINK = 'http://www.w3.org/1999/xlink'

/**
 * Make the links of a mermaid SVG inert (see the module comment).
 * @param svg mermaid's rendered SVG markup
 * @returns the same markup with no `href`, `xlink:href`, `target` or `on*` attributes left on any element
 */
export function neutralizeDiagramLinks(svg: string): string {
  const template = document.createElement('template')
  template.innerHTML = svg
  for (const el of template.content.querySelectorAll('*')) {
    for (const attr of [...el.attributes]) {
      if (/^on/i.test(attr.name)) el.removeAttribute(attr.name)
    }
    const href = (el.getAttribute('href') ?? el.getAttributeNS(XLINK, 'href') ?? el.getAttribute('xlink:href') ?? '').trim()
    if (el.localName !== 'a' && !href) continue
    el.removeAttribute('href')
    el.removeAttributeNS(XLINK, 'href')
    el.removeAttribute('xlink:href')
    el.removeAttribute('target')
    if (el.localName !== 'a') continue
    if (SAFE_HREF.test(href)) {
      el.setAttribute(DIAGRAM_HREF_ATTR, href)
      el.setAttribute('role', 'link')
      appendTitle(el, `opens outside Cortex: ${href}`)
    } else if (href) {
      appendTitle(el, `link not opened: ${href}`)
    }
  }
  return template.innerHTML
}

/** A tooltip: `<title>` for SVG elements, the title attribute for HTML ones (labels in foreignObject). */
function appendTitle(el: Element, text: string): void {
  if (el.namespaceURI === 'http://www.w3.org/2000/svg') {
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title')
    title.textContent = text
    el.insertBefore(title, el.firstChild)
  } else {
    el.setAttribute('title', text)
  }
}

/**
 * Click handler of the diagram container (capture phase): a click inside a link never navigates;
 * an http(s) one opens in a new window with `noopener,noreferrer` (Electron's window-open handler
 * sends it to the system browser).
 */
export function openDiagramLink(event: { target: EventTarget | null; preventDefault(): void; stopPropagation(): void }): void {
  const target = event.target instanceof Element ? event.target : null
  const link = target?.closest('a')
  if (!link) return
  event.preventDefault()
  event.stopPropagation()
  const href = link.getAttribute(DIAGRAM_HREF_ATTR)
  if (href && SAFE_HREF.test(href)) window.open(href, '_blank', 'noopener,noreferrer')
}
