/**
 * The plan lock bar's feedback box is wide enough to type in (issue 23: at 1400×900 with the side
 * panel open it was ~60 px, its placeholder cut to "What s"); the bar wraps instead of squeezing it.
 * Chromium through the web host, the real session service, a real guest and the scripted model.
 * Screenshot: test-results/lock-bar-width.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useWebApp } from './support/fixtures'
import { expectTurnEnds, sendMessage } from './support/web-app'

const PLAN = { title: 'Greeting', summary: 'Write hello.txt.', steps: ['Write hello.txt', 'Check hello.txt'], mermaid: 'flowchart TD\n  A[Write] --> B[Check]' }

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('the plan lock bar', () => {
  const web = useWebApp({ files: { 'a.txt': 'a\n' }, script: [{ toolCalls: [{ name: 'plan', args: PLAN }] }, { text: 'The plan is ready.' }] })

  it('gives the rejection feedback box a usable width at 1400×900 with the side panel open', async () => {
    // openPage's window is 1400×900, with the side panel open as a new user finds it
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await page.getByTestId('mode-select').selectOption('plan')
    await sendMessage(page, 'Plan a greeting.')
    await expectTurnEnds(page, 1)
    await expect.poll(() => page.getByTestId('lock-label').textContent()).toBe('Plan — locked until you accept')
    const box = page.getByTestId('lock-feedback')
    const width = (await box.boundingBox())?.width ?? 0
    await saveScreenshot(page, 'lock-bar-width.png')
    // the whole placeholder fits, and the bar's buttons stay inside the window
    const fits = await box.evaluate((el: HTMLInputElement) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().right <= window.innerWidth)
    expect(width).toBeGreaterThanOrEqual(240)
    expect(fits).toBe(true)
    const reject = await page.getByTestId('lock-reject').boundingBox()
    expect(reject!.x + reject!.width).toBeLessThanOrEqual(1400)
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)
})
