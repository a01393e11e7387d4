/**
 * The Files tab after switching to a session on another repository (issue 23, item 11), in
 * Chromium through the web host with real Docker guests: the file opened in the first session's
 * repository no longer shows; the new session's tree and files do. Screenshot:
 * test-results/file-view-switch.png.
 */
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useBrowser } from './support/fixtures'
import { openRepo } from './support/web-app'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('the file view across sessions', () => {
  const chromium = useBrowser({ guestImage: true })

  it("drops the previous session's file when another repository's session is shown", async () => {
    const first = await makeTestRepo({ 'first-only.txt': 'FIRST-REPO-TEXT\n' })
    const second = await makeTestRepo({ 'second-only.txt': 'SECOND-REPO-TEXT\n' })
    const app = await chromium.startApp({ script: [] })
    const { page, pageErrors } = await openPage(chromium.browser, app, first)
    await page.getByTestId('tab-files').click()
    await page.locator('[data-testid="tree-file"][data-path="first-only.txt"]').click({ timeout: 30_000 })
    await expect.poll(() => page.getByTestId('file-path').textContent(), { timeout: 20_000 }).toBe('first-only.txt')

    await openRepo(page, second)
    await page.locator('[data-testid="tree-file"][data-path="second-only.txt"]').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('file-path').count()).toBe(0)
    expect(await page.getByTestId('file-view').textContent()).not.toContain('FIRST-REPO-TEXT')
    await saveScreenshot(page, 'file-view-switch.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 180_000)
})
