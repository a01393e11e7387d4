/**
 * A long command awaiting approval at 1440×900 (issue 23, item 7), in Chromium through the web host
 * with a real Docker guest: the card wraps the command and keeps its buttons whole (the rule field
 * overflowed the card and "Always" became a vertical stack of letters), and the Terminal pane shows
 * the command as waiting, not running, until it is allowed. Screenshot: test-results/approval-long-*.png.
 */
import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useBrowser } from './support/fixtures'
import { sendMessage } from './support/web-app'

const LONG = `echo ${Array.from({ length: 24 }, (_, i) => `--option-number-${i}=value-${i}`).join(' ')} && echo long-$((6*7))`

/** The text xterm shows in the agent terminal (its DOM rows), right-trimmed, empty rows dropped. */
async function terminalRows(page: Page): Promise<string[]> {
  const rows = await page.getByTestId('terminal').locator('.xterm-rows > div').evaluateAll((r) => r.map((x) => (x.textContent ?? '').replace(/\s+$/, '')))
  return rows.filter((r) => r !== '')
}

/** The element's box lies inside the card's box (1 px tolerance). */
async function inside(el: Locator, card: Locator): Promise<boolean> {
  const [a, b] = await Promise.all([el.boundingBox(), card.boundingBox()])
  return !!a && !!b && a.x >= b.x - 1 && a.x + a.width <= b.x + b.width + 1
}

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('a long command awaiting approval', () => {
  const chromium = useBrowser({ guestImage: true })

  it('wraps in the card with whole buttons, and reads as waiting in the Terminal until allowed', async () => {
    const repo = await makeTestRepo({ 'README.md': '# Long\n' })
    const app = await chromium.startApp({ script: [{ text: 'Running it.', toolCalls: [{ name: 'bash', args: { command: LONG } }] }, { text: 'Done.' }] })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo, { viewport: { width: 1440, height: 900 } })
    await page.getByTestId('tab-terminal').click()
    await sendMessage(page, 'run the long one')
    const card = page.locator('[data-testid="approval-card"][data-status="waiting"]')
    await card.waitFor({ timeout: 60_000 })

    expect(await card.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
    for (const id of ['approval-allow-once', 'approval-always', 'approval-deny', 'approval-rule', 'approval-deny-reason', 'approval-call']) {
      expect(await inside(card.getByTestId(id), card), id).toBe(true)
    }
    for (const id of ['approval-allow-once', 'approval-always', 'approval-deny']) {
      const box = await card.getByTestId(id).boundingBox()
      expect(box && box.width > box.height, `${id} is laid out as a word, not a column of letters`).toBe(true)
    }
    expect(await card.getByTestId('approval-rule').inputValue()).toBe(LONG)

    // the terminal: the command, then that it waits; no output
    await expect.poll(() => terminalRows(page), { timeout: 10_000 }).toContain('[waiting for your approval: not run yet]')
    expect((await terminalRows(page)).join('\n')).not.toContain('long-42')
    await saveScreenshot(page, 'approval-long-waiting.png')

    await card.getByTestId('approval-allow-once').click()
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    await expect.poll(() => terminalRows(page)).toContain('long-42')
    const rows = await terminalRows(page)
    expect(rows.indexOf('[allowed: running]')).toBeGreaterThan(rows.indexOf('[waiting for your approval: not run yet]'))
    expect(rows.indexOf('long-42')).toBeGreaterThan(rows.indexOf('[allowed: running]'))
    await saveScreenshot(page, 'approval-long-allowed.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 180_000)
})
