// The approval card shows what runs: bidi overrides and zero-width characters in the call (or in the
// model's escalation justification) are shown as \uXXXX escapes instead of reordering or hiding text
// in the browser (an RLO made `rm -rf ~` display reversed). Rendered with React's server renderer.
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it, vi } from 'vitest'
import { visibleText, type ApprovalItem } from './approvals-view'

// the card's module graph reaches the app store, which picks its transport from `window` when loaded
// (nothing connects until an action runs): a location is all it needs to load under Node
vi.stubGlobal('window', { location: new URL('http://127.0.0.1:9/?token=t') })
const { ApprovalCard } = await import('./ApprovalCard')

describe('the approval card', () => {
  it('escapes bidi and zero-width characters of the command and the reason', () => {
    const item: ApprovalItem = {
      kind: 'approval', id: 'a1', requestId: 'r1', callId: 'c1', tool: 'bash', status: 'waiting',
      args: { command: 'echo ok #\u202e~ fr- mr' }, reason: 'needs the network: fine\u200b\u2066'
    }
    const html = renderToStaticMarkup(createElement(ApprovalCard, { item }))
    expect(html).toContain('echo ok #\\u202e~ fr- mr')
    expect(html).toContain('needs the network: fine\\u200b\\u2066')
    expect(html).not.toMatch(/[\u200b\u202e\u2066]/)
  })

  it('visibleText leaves ordinary text (accents, CJK, emoji) alone', () => {
    expect(visibleText('café 日本 🚀 "x"')).toBe('café 日本 🚀 "x"')
  })
})
