/**
 * Settings in the browser host while the connection comes from flags (issue 23, item 11): the form
 * shows the connection in force instead of empty fields, "Test connection" then tests that same
 * connection and agrees with "In force now", and a base URL on port 9 gets a reason the user can act
 * on instead of undici's bare "bad port". Chromium through the web host, the real session service
 * and the scripted model server (whose GET /models lists one id); no guest is used.
 * Screenshot: test-results/settings-in-force.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'

describe.skipIf(skipWithoutChromium())('Settings with a connection in force', () => {
  const chromium = useBrowser()

  it('fills the form from the connection in force, tests it, and explains port 9', async () => {
    const app = await chromium.startApp({ script: [], guests: refusingGuests(), eagerGuest: false, models: ['scripted-model'] })
    const { page, pageErrors } = await openPage(chromium.browser, app)
    await page.getByTestId('open-settings').click()
    await page.getByTestId('settings-inforce').waitFor({ timeout: 10_000 })
    expect(await page.getByTestId('settings-inforce').textContent()).toContain('scripted-model')
    expect(await page.getByTestId('settings-provider').inputValue()).toBe('openai-compatible')
    expect(await page.getByTestId('settings-model').inputValue()).toBe('scripted-model')
    expect(await page.getByTestId('settings-baseUrl').inputValue()).toBe(app.model.baseUrl)
    await page.getByTestId('settings-test').click()
    await expect.poll(() => page.getByTestId('settings-status').textContent(), { timeout: 15_000 }).toMatch(/^✓ .* answered: 1 model listed$/)
    await saveScreenshot(page, 'settings-in-force.png')

    await page.getByTestId('settings-baseUrl').fill('http://127.0.0.1:9/v1')
    await page.getByTestId('settings-test').click()
    await expect.poll(() => page.getByTestId('settings-status').textContent(), { timeout: 15_000 }).toContain('port 9 is on the list of ports fetch refuses')
    expect(await page.getByTestId('settings-status').textContent()).toContain('another port')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 60_000)
})
