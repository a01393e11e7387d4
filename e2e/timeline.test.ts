/**
 * The timeline in Chromium through the web host with the real session service and the scripted
 * model (no tool runs, so no guest starts): while an answer streams and the user has scrolled up,
 * the view stays put and a "New messages below" button appears, which brings them back to the
 * bottom; the timeline is a feed of article rows navigated with Home / ↓ / End, focus visible.
 * Screenshot: test-results/timeline-new-messages.png.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium } from '../test/support/requirements'
import { ensureRendererBuild, launchChromium, RESULTS_DIR, type TestBrowser } from './support/browser'
import { gotoApp, openRepo, startWebApp, type WebApp } from './support/web-app'

const LONG = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of a long first answer.`).join('\n\n')
const STREAMED = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ')

describe.skipIf(skipWithoutChromium())('web host: timeline follows the stream, new-messages cue, keyboard', () => {
  let app: WebApp
  let browser: TestBrowser
  let repo: string

  beforeAll(async () => {
    ensureRendererBuild()
    repo = await makeTestRepo({ 'README.md': 'hi\n' })
    app = await startWebApp({
      script: [{ text: LONG }, { text: STREAMED, chunkDelayMs: 40 }],
      // no tool is called: a guest is never asked for
      guests: { start: () => Promise.reject(new Error('no guest in this test')) },
      eagerGuest: false
    })
    browser = await launchChromium()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('stays put when scrolled up, shows the cue, and returns to the bottom from it', async () => {
    const page = await browser.context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await gotoApp(page, app.host.url)
    await openRepo(page, repo)
    const timeline = page.getByTestId('timeline')
    expect(await timeline.getAttribute('role')).toBe('feed')
    await page.getByTestId('composer-input').fill('Tell me a lot.')
    await page.getByTestId('send-button').click()
    await page.getByTestId('turn-end').first().waitFor({ timeout: 30_000 })
    // followed the first answer to its end
    const gap = (): Promise<number> => timeline.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)
    await expect.poll(gap).toBeLessThan(40)

    await page.getByTestId('composer-input').fill('Now stream slowly.')
    await page.getByTestId('send-button').click()
    await page.getByText('word3', { exact: false }).waitFor({ timeout: 15_000 })
    await timeline.evaluate((el) => el.scrollTo({ top: 0 }))
    await timeline.dispatchEvent('scroll')
    const cue = page.getByTestId('new-messages')
    await cue.waitFor({ timeout: 10_000 })
    expect(await timeline.evaluate((el) => el.scrollTop)).toBeLessThan(50)
    mkdirSync(RESULTS_DIR, { recursive: true })
    await page.screenshot({ path: join(RESULTS_DIR, 'timeline-new-messages.png') })
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
