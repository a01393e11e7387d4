/**
 * A message sent while the browser host is gone (issue 23, item 4), in Chromium through the web
 * host with a real Docker guest: the composer keeps the text with a notice instead of clearing,
 * the status badges turn stale-grey, and when the host is back (same port and token, as after a
 * network blip) the held message is sent once and answered. Screenshot: test-results/offline-*.png.
 */
import { describe, expect, it } from 'vitest'
import { startWebHost, type WebHost } from '../src/web'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { RENDERER_DIR, saveScreenshot } from './support/browser'
import { openPage, useBrowser } from './support/fixtures'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('sending while disconnected', () => {
  const chromium = useBrowser({ guestImage: true })

  it('keeps the message in the composer with a notice, greys the badges, and sends it on reconnect', async () => {
    const repo = await makeTestRepo({ 'README.md': '# Offline\n' })
    const app = await chromium.startApp({ script: [{ text: 'Got it after the reconnect.' }] })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo)
    const guest = page.getByTestId('guest-status')
    await page.locator('[data-testid="guest-status"][data-state="ready"]').waitFor({ timeout: 60_000 })
    const colour = (): Promise<string> => guest.evaluate((el) => getComputedStyle(el).color)
    const ready = await colour()

    await app.host.close()
    await page.locator('[data-testid="connection"][data-state="closed"]').waitFor({ timeout: 15_000 })
    const input = page.getByTestId('composer-input')
    await input.fill('Sent while the host was gone')
    await page.getByTestId('send-button').click()
    // the message stays (the old composer emptied at the click), with a notice; nothing went to the model
    expect(await input.inputValue()).toBe('Sent while the host was gone')
    await page.locator('[data-testid="composer-offline"][data-held="true"]').waitFor({ timeout: 5_000 })
    expect(app.model.requests).toHaveLength(0)
    // the guest badge no longer claims a live "ready" in green
    const muted = await page.evaluate(() => {
      const probe = document.createElement('span')
      probe.style.color = 'var(--muted)'
      document.body.append(probe)
      const c = getComputedStyle(probe).color
      probe.remove()
      return c
    })
    await expect.poll(colour).toBe(muted)
    expect(muted).not.toBe(ready)
    await saveScreenshot(page, 'offline-held.png')

    // the host comes back on the same port with the same token: the held message goes out once
    let again: WebHost | undefined
    try {
      again = await startWebHost({ api: app.service, rendererDir: RENDERER_DIR, port: app.host.port, token: app.host.token })
      await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 30_000 })
      await expect.poll(() => page.getByTestId('assistant-text').allTextContents(), { timeout: 60_000 }).toContain('Got it after the reconnect.')
      expect(await page.getByTestId('user-message').allTextContents()).toEqual(['Sent while the host was gone'])
      expect(await input.inputValue()).toBe('')
      expect(await page.getByTestId('composer-offline').count()).toBe(0)
      expect(app.model.requests).toHaveLength(1)
      expect(await colour()).toBe(ready)
      await saveScreenshot(page, 'offline-sent.png')
      expect(pageErrors).toEqual([])
    } finally {
      await page.close()
      await again?.close()
    }
  }, 240_000)
})
