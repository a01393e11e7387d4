/**
 * The web sidebar does not fill with empty "(no message yet)" sessions (issue 23, item 11): stored
 * sessions nobody wrote in are not listed (a count says how many), unless open in this window.
 * Chromium through the web host and the real session service; no guest is used.
 * Screenshot: test-results/sessions-empty.png.
 */
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'
import { openRepo } from './support/web-app'

describe.skipIf(skipWithoutChromium())('empty sessions in the sidebar', () => {
  const chromium = useBrowser()

  it('lists only sessions with a message, plus the one open here', async () => {
    const repo = await makeTestRepo({}, { git: false })
    const app = await chromium.startApp({ script: [{ text: 'Answered.' }], guests: refusingGuests(), eagerGuest: false })
    // earlier visits: three sessions opened and left without a message, one with a message
    for (let i = 0; i < 3; i++) {
      const s = await app.service.openSession({ repo })
      await app.service.closeSession({ sessionId: s.id })
    }
    const used = await app.service.openSession({ repo })
    await app.service.submit({ sessionId: used.id, op: { type: 'user_message', text: 'A real question' } })
    await app.service.idle(used.id)
    await app.service.closeSession({ sessionId: used.id })

    const { page, pageErrors } = await openPage(chromium.browser, app)
    await expect.poll(() => page.getByTestId('session-title').allTextContents(), { timeout: 10_000 }).toEqual(['A real question'])
    expect(await page.getByTestId('sessions-hidden-empty').textContent()).toBe('3 empty sessions not shown')
    // the session opened now is listed while it is open, though empty
    await openRepo(page, repo)
    await expect.poll(() => page.getByTestId('stored-session').count(), { timeout: 10_000 }).toBe(2)
    await saveScreenshot(page, 'sessions-empty.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 60_000)
})
