/**
 * Settings in the browser host when settings.json holds a bad value: the dialog says what is wrong
 * and shows the value in force (the default) while the file's other settings fill the form; saving
 * writes what the form shows and the note goes. A file that is not JSON is said so and a save is
 * refused with the file left as it was. Chromium through the web host and the real session service.
 * Screenshot: test-results/settings-file-problems.png.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'

describe.skipIf(skipWithoutChromium())('Settings with a bad settings file', () => {
  const chromium = useBrowser()

  it('names the bad value, keeps the other settings, and saves what the form shows', async () => {
    const app = await chromium.startApp({ script: [], guests: refusingGuests(), eagerGuest: false })
    const file = join(app.dataDir, 'settings.json')
    writeFileSync(file, JSON.stringify({ model: 'kept-model', warmPool: 99 }))
    const { page, pageErrors } = await openPage(chromium.browser, app)
    await page.getByTestId('open-settings').click()
    await page.getByTestId('settings-file-problems').waitFor({ timeout: 10_000 })
    expect(await page.getByTestId('settings-file-problems').textContent()).toContain('"warmPool" must be 0 to 8: its default is used until it is fixed')
    expect(await page.getByTestId('settings-model').inputValue()).toBe('kept-model')
    expect(await page.getByTestId('settings-warmPool').inputValue()).toBe('1')
    await saveScreenshot(page, 'settings-file-problems.png')

    await page.getByTestId('settings-save').click()
    await page.getByTestId('settings-file-problems').waitFor({ state: 'detached', timeout: 10_000 })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ model: 'kept-model', warmPool: 1 })
    expect(pageErrors).toEqual([])
    await page.close()
  }, 60_000)

  it('says a file that is not JSON is so, and refuses to save over it', async () => {
    const app = await chromium.startApp({ script: [], guests: refusingGuests(), eagerGuest: false })
    const file = join(app.dataDir, 'settings.json')
    const text = '{ "model": "kept-model", }\n'
    writeFileSync(file, text)
    const { page, pageErrors } = await openPage(chromium.browser, app)
    await page.getByTestId('open-settings').click()
    await page.getByTestId('settings-file-problems').waitFor({ timeout: 10_000 })
    expect(await page.getByTestId('settings-file-problems').textContent()).toContain('is not valid JSON')
    await page.getByTestId('settings-model').fill('other-model')
    await page.getByTestId('settings-save').click()
    await expect.poll(() => page.getByTestId('settings-error-form').textContent().catch(() => ''), { timeout: 10_000 }).toContain('fix or remove it first (it was left as it is)')
    expect(readFileSync(file, 'utf8')).toBe(text)
    expect(pageErrors).toEqual([])
    await page.close()
  }, 60_000)
})
