/**
 * Custom slash commands in the app (ADR 0036), in Chromium through the web host with the real
 * session service and the scripted model server: typing `/re` in the composer opens a completion
 * popup listing the user's `/review` (with its argument hint and description), Tab completes it,
 * and `/review src/a.ts` sent expands in the session: the model server receives the expansion with
 * the argument, and the timeline shows the command typed with its expansion collapsed. No guest is
 * used. Screenshots: test-results/command-completion.png, test-results/command-row.png.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'
import { openRepo } from './support/web-app'

describe.skipIf(skipWithoutChromium())('custom slash commands in the composer', () => {
  const chromium = useBrowser()

  it('offers /review with completion, and the model gets its expansion with the argument', async () => {
    const repo = await makeTestRepo({ 'src/a.ts': 'export const a = 1\n' }, { git: false })
    const app = await chromium.startApp({ script: [{ text: 'Reviewed.' }], guests: refusingGuests(), eagerGuest: false })
    mkdirSync(join(app.dataDir, 'commands'), { recursive: true })
    writeFileSync(join(app.dataDir, 'commands/review.md'), '---\ndescription: Review one file for bugs\nargument-hint: FILE\n---\nReview $1 for bugs and say what you found (MARKER-WEB-REVIEW).\n')
    const { page, pageErrors } = await openPage(chromium.browser, app)
    await openRepo(page, repo)
    const input = page.getByTestId('composer-input')
    await input.click()
    await page.keyboard.type('/re')
    const popup = page.getByTestId('command-completions')
    await popup.waitFor({ timeout: 10_000 })
    await expect.poll(() => popup.locator('li').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['review'])
    expect(await popup.textContent()).toContain('FILE')
    expect(await popup.textContent()).toContain('Review one file for bugs')
    await saveScreenshot(page, 'command-completion.png')
    await page.keyboard.press('Tab')
    await expect.poll(() => input.inputValue()).toBe('/review ')
    await page.keyboard.type('src/a.ts')
    expect(await popup.count()).toBe(0) // a space closes it: the arguments follow
    await page.keyboard.press('Enter')

    const row = page.locator('[data-testid="user-message"][data-command="/review src/a.ts"]')
    await row.waitFor({ timeout: 30_000 })
    await expect.poll(() => page.getByTestId('assistant-text').allTextContents(), { timeout: 30_000 }).toContain('Reviewed.')
    // the expansion is there, collapsed, and opens on a click
    const details = row.getByTestId('command-expansion')
    expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false)
    await details.locator('summary').click()
    expect(await details.locator('pre').textContent()).toBe('Review src/a.ts for bugs and say what you found (MARKER-WEB-REVIEW).')
    await saveScreenshot(page, 'command-row.png')

    const post = app.model.requests.filter((r) => r.method === 'POST').at(-1)
    const messages = (post?.body as { messages: Array<{ role: string; content: unknown }> }).messages
    expect(JSON.stringify(messages.filter((m) => m.role === 'user').at(-1)?.content)).toContain('Review src/a.ts for bugs and say what you found (MARKER-WEB-REVIEW).')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)
})
