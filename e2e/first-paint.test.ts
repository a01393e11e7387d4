/**
 * The app's first paint of a session with history, in Chromium through the web host with the real
 * session service and the scripted model (no tool runs, so no guest starts; issue 24): after a
 * reload the timeline's rows are painted before xterm.js (the Agent terminal's chunk) is even
 * fetched — it loads when the page is next idle — and the Agent pane still comes up after.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium } from '../test/support/requirements'
import { openPage, refusingGuests, useWebApp } from './support/fixtures'
import { gotoApp, sendMessage } from './support/web-app'

describe.skipIf(skipWithoutChromium())('web host: first paint of a session with history', () => {
  const web = useWebApp({
    files: { 'README.md': 'hi\n' },
    script: [{ text: 'First **answer**.' }, { text: 'Second answer.' }],
    // no tool is called: a guest is never asked for
    guests: refusingGuests,
    eagerGuest: false
  })

  it('paints the rows before the Agent terminal loads xterm.js, which loads after', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await sendMessage(page, 'One.')
    await page.getByTestId('turn-end').first().waitFor({ timeout: 30_000 })
    await sendMessage(page, 'Two.')
    await page.getByTestId('turn-end').nth(1).waitFor({ timeout: 30_000 })

    // the reload: note (in the page, so no polling delay counts) when the last turn's footer is added
    await page.addInitScript(`(() => {
      window.__rowsAt = -1
      new MutationObserver((_, obs) => {
        if (document.querySelectorAll('[data-testid="turn-end"]').length >= 2) {
          window.__rowsAt = performance.now()
          obs.disconnect()
        }
      }).observe(document, { childList: true, subtree: true })
    })()`)
    await gotoApp(page, web.app.host.url)
    await page.getByTestId('turn-end').nth(1).waitFor({ timeout: 30_000 })
    // the Agent pane comes up once the page is idle: xterm's element is there
    await page.locator('[data-testid="terminal"] .xterm').waitFor({ state: 'attached', timeout: 30_000 })
    const timing = await page.evaluate<{ rowsAt: number; xtermAt: number[] }>(`(() => ({
      rowsAt: window.__rowsAt,
      xtermAt: performance.getEntriesByType('resource').filter((r) => /\\/assets\\/AgentTerminal-[^/]*\\.js$/.test(r.name)).map((r) => r.startTime)
    }))()`)
    expect(timing.rowsAt).toBeGreaterThan(0)
    expect(timing.xtermAt).toHaveLength(1)
    expect(timing.xtermAt[0]).toBeGreaterThan(timing.rowsAt)
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)
})
