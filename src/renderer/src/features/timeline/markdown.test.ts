/**
 * The Markdown step before sanitizing (node has no DOM; the sanitized output and the links are
 * checked in the browser by e2e/web-turn.test.ts): raw HTML is escaped, images become text.
 */
import { describe, expect, it } from 'vitest'
import { escapeHtml, markdownToHtml } from './markdown'

describe('markdownToHtml', () => {
  it('renders emphasis, code and lists', () => {
    expect(markdownToHtml('**bold** and `code`')).toBe('<p><strong>bold</strong> and <code>code</code></p>')
    expect(markdownToHtml('- a\n- b')).toContain('<li>a</li>')
  })

  it('escapes raw HTML instead of passing it through', () => {
    const html = markdownToHtml('hi <img src=x onerror="window.__pwned=1"> there\n\n<script>alert(1)</script>')
    expect(html).not.toContain('<img')
    expect(html).not.toContain('<script')
    expect(html).toContain('&lt;img src=x onerror=')
  })

  it('replaces images by their alt text', () => {
    expect(markdownToHtml('![logo](http://example.com/x.png)')).toBe('<p><em>[image: logo]</em></p>')
  })

  it('escapes the five HTML characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
  })
})
