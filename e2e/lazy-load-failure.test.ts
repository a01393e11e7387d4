/**
 * End to end through the web host in Chromium: a part of the app loaded on demand whose chunk
 * cannot be fetched (here the settings dialog's, refused by the page's network layer — as when the
 * app was rebuilt since the page loaded) shows a note with a reload button in its place, and the
 * rest of the app stays mounted and usable. No guest is needed: a provider that refuses to start one.
 * Screenshot: test-results/web-lazy-failed.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { newPage, refusingGuests, useWebApp } from './support/fixtures'
import { gotoApp } from './support/web-app'

describe.skipIf(skipWithoutChromium())('web host: a part that fails to load', () => {
  const web = useWebApp({ git: false, script: [{ text: 'Hi.' }], guests: () => refusingGuests(), eagerGuest: false })

  it('shows a note in its place and keeps the app', async () => {
    const { page } = await newPage(web.browser)
    const refused: string[] = []
    await page.route('**/assets/SettingsDialog-*.js', async (route) => {
      refused.push(route.request().url())
      await route.abort('failed')
    })
    await gotoApp(page, web.app.host.url)
    await page.getByTestId('open-settings').click()
    const note = page.getByTestId('lazy-failed')
    await note.waitFor({ timeout: 15_000 })
    expect(refused.length).toBeGreaterThan(0)
    expect(await note.textContent()).toMatch(/Could not load the settings/)
    expect(await page.getByTestId('lazy-reload').isVisible()).toBe(true)
    // the rest of the app is still there and answers
    expect(await page.getByTestId('composer').isVisible()).toBe(true)
    expect(await page.getByTestId('repo-input').isEditable()).toBe(true)
    await saveScreenshot(page, 'web-lazy-failed.png')
    await page.close()
  }, 120_000)
})
