/**
 * The web sidebar titles the open session with its first message while the first turn still runs
 * (issue 23: it said "(no message yet)" until a reload). Chromium through the web host, the real
 * session service and a model that hangs after its text; no guest is used.
 */
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium } from '../test/support/requirements'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'
import { openRepo, sendMessage } from './support/web-app'

describe.skipIf(skipWithoutChromium())('the open session title in the sidebar', () => {
  const chromium = useBrowser()

  it('shows the first message as the title while the first turn runs', async () => {
    const repo = await makeTestRepo({}, { git: false })
    const app = await chromium.startApp({ script: [{ text: 'Thinking about it', hangAfterText: true }], guests: refusingGuests(), eagerGuest: false })
    const { page, pageErrors } = await openPage(chromium.browser, app)
    await openRepo(page, repo)
    await expect.poll(() => page.getByTestId('session-title').allTextContents(), { timeout: 10_000 }).toEqual(['(no message yet)'])
    await sendMessage(page, 'Explain the   build')
    // the model's text arrived: the turn is running, and stays so (the stream hangs)
    await page.getByText('Thinking about it').first().waitFor({ timeout: 10_000 })
    await expect.poll(() => page.getByTestId('session-title').allTextContents(), { timeout: 10_000 }).toEqual(['Explain the build'])
    expect(pageErrors).toEqual([])
    await page.close()
  }, 60_000)
})
