/**
 * The timeline in Chromium through the web host with the real session service and the scripted
 * model (no tool runs, so no guest starts): while an answer streams and the user has scrolled up,
 * the view stays put and a "New messages below" button appears, which brings them back to the
 * bottom; the timeline is a feed of article rows navigated with Home / ↓ / End, focus visible.
 * Screenshot: test-results/timeline-new-messages.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useWebApp } from './support/fixtures'
import { sendMessage } from './support/web-app'

const LONG = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of a long first answer.`).join('\n\n')
const STREAMED = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ')

describe.skipIf(skipWithoutChromium())('web host: timeline follows the stream, new-messages cue, keyboard', () => {
  const web = useWebApp({
    files: { 'README.md': 'hi\n' },
    script: [{ text: LONG }, { text: STREAMED, chunkDelayMs: 40 }],
    // no tool is called: a guest is never asked for
    guests: refusingGuests,
    eagerGuest: false
  })

  it('stays put when scrolled up, shows the cue, and returns to the bottom from it', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    const timeline = page.getByTestId('timeline')
    expect(await timeline.getAttribute('role')).toBe('feed')
    await sendMessage(page, 'Tell me a lot.')
    await page.getByTestId('turn-end').first().waitFor({ timeout: 30_000 })
    // followed the first answer to its end
    const gap = (): Promise<number> => timeline.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)
    await expect.poll(gap).toBeLessThan(40)

    await sendMessage(page, 'Now stream slowly.')
    await page.getByText('word3', { exact: false }).waitFor({ timeout: 15_000 })
    await timeline.evaluate((el) => el.scrollTo({ top: 0 }))
    await timeline.dispatchEvent('scroll')
    const cue = page.getByTestId('new-messages')
    await cue.waitFor({ timeout: 10_000 })
    expect(await timeline.evaluate((el) => el.scrollTop)).toBeLessThan(50)
    await saveScreenshot(page, 'timeline-new-messages.png')
    await cue.click()
    await expect.poll(gap).toBeLessThan(40)
    expect(await cue.count()).toBe(0)
    await page.getByTestId('turn-end').nth(1).waitFor({ timeout: 30_000 })
    await expect.poll(gap).toBeLessThan(40)

    // keyboard: Home, ↓, End move the focus between articles
    await timeline.focus()
    const focused = (): Promise<string | null> => page.evaluate(() => document.activeElement?.getAttribute('aria-posinset') ?? null)
    await page.keyboard.press('Home')
    await expect.poll(focused).toBe('1')
    await page.keyboard.press('ArrowDown')
    await expect.poll(focused).toBe('2')
    const size = await page.locator('[role="article"]').first().getAttribute('aria-setsize')
    await page.keyboard.press('End')
    await expect.poll(focused).toBe(size)
    expect(await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle)).toBe('solid')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)
})
