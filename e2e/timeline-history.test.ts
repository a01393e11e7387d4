/**
 * A long session's history opens at its bottom without rendering its top first (issue 24): the
 * real web host and renderer in Chromium, over a session API that serves a 700-event history (no
 * model or guest is involved: only the renderer's handling of a history is under test). Every row
 * the timeline ever puts in the DOM is recorded from the page's start; none may come from the top.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiStub, type RequestName, type SessionInfo } from '../src/shared/contract'
import { CortexError } from '../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../src/shared/events'
import { startWebHost } from '../src/web'
import { skipWithoutChromium } from '../test/support/requirements'
import { ensureRendererBuild, launchChromium, RENDERER_DIR, type TestBrowser } from './support/browser'

/** `turns` turns of a question, an answer in Markdown and a footer. */
function history(sessionId: string, turns: number): EventEnvelope[] {
  const events: SessionEvent[] = [{ type: 'session_opened', repo: '/tmp/history-repo', mode: 'agent' }]
  for (let t = 0; t < turns; t++) {
    const turnId = `t${t}`
    events.push(
      { type: 'user_message', turnId, text: `Question ${t}` },
      { type: 'turn_started', turnId, mode: 'agent' },
      { type: 'assistant_message', turnId, text: `Answer **${t}**.`, toolCalls: [] },
      { type: 'turn_ended', turnId, reason: 'completed' }
    )
  }
  return events.map((event, i) => ({ sessionId, seq: i + 1, time: 1_700_000_000_000 + i, event }))
}

describe.skipIf(skipWithoutChromium())('web host: a long history opens at its bottom', () => {
  const events = history('s-long', 175)
  const info: SessionInfo = { id: 's-long', repo: '/tmp/history-repo', mode: 'agent', sandbox: 'workspace-write', createdAt: 1_700_000_000_000, running: false }
  const api = createApiStub(
    async (name: RequestName) => {
      if (name === 'listSessions') return [info]
      if (name === 'sessionEvents') return events
      if (name === 'listStoredSessions') return []
      throw new CortexError('session_not_found', `${name} is not served here`)
    },
    () => () => undefined
  )
  let host: Awaited<ReturnType<typeof startWebHost>> | undefined
  let browser: TestBrowser | undefined
  beforeAll(async () => {
    ensureRendererBuild()
    host = await startWebHost({ api, rendererDir: RENDERER_DIR, port: 0 })
    browser = await launchChromium()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })

  it('renders the last rows first, never the first screen of the history', async () => {
    const page = await browser!.context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.addInitScript(`(() => {
      window.__rendered = []
      new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes) {
          if (n.nodeType !== 1) continue
          const rows = n.matches('.timeline-item[data-index]') ? [n] : [...n.querySelectorAll('.timeline-item[data-index]')]
          for (const row of rows) window.__rendered.push(Number(row.dataset.index))
        }
      }).observe(document, { childList: true, subtree: true })
    })()`)
    await page.goto(host!.url)
    await page.getByTestId('turn-end').last().waitFor({ timeout: 30_000 })
    const count = await page.locator('.timeline-item').first().getAttribute('aria-setsize')
    const rendered = await page.evaluate<number[]>('window.__rendered')
    expect(Number(count)).toBeGreaterThan(300)
    expect(rendered.length).toBeGreaterThan(0)
    // the rows of the last screens only (a screen is ~20 rows here)
    expect(Math.min(...rendered)).toBeGreaterThan(Number(count) - 80)
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)
})
