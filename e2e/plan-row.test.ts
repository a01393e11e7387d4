/**
 * The plan's content in the timeline (issue 23, item 11): a `plan` call's row shows the plan it
 * published — title, summary and steps — not only "Plan … published with 2 steps". Chromium
 * through the web host and the real session service; the plan tool needs no guest.
 * Screenshot: test-results/plan-row.png.
 */
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'
import { sendMessage } from './support/web-app'

describe.skipIf(skipWithoutChromium())('a plan row in the timeline', () => {
  const chromium = useBrowser()

  it('shows the title, summary and steps of the plan', async () => {
    const repo = await makeTestRepo({}, { git: false })
    const app = await chromium.startApp({
      script: [
        { toolCalls: [{ name: 'plan', args: { title: 'Rename the helper', summary: 'Touch **two** files.', steps: ['rename util.ts', 'update the imports'], mermaid: 'flowchart TD\n  A --> B' } }] },
        { text: 'Planned.' }
      ],
      guests: refusingGuests(),
      eagerGuest: false
    })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo)
    await page.getByTestId('mode-select').selectOption('plan')
    await sendMessage(page, 'Plan it.')
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    const row = page.locator('[data-testid="tool-row"][data-tool-name="plan"]')
    const text = (await row.textContent()) ?? ''
    expect(text).toContain('Rename the helper')
    expect(text).toContain('Touch two files.')
    expect(await row.locator('ol li').allTextContents()).toEqual(['rename util.ts', 'update the imports'])
    await saveScreenshot(page, 'plan-row.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 60_000)
})
