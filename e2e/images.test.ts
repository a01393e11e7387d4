/**
 * Images in the app through the web host (ADR 0025): a real session service (scripted
 * OpenAI-compatible model over HTTP, real Docker guest) driven from Debian's Chromium. A PNG pasted
 * into the composer and another dropped on it wait as thumbnails, go with the message, are stored
 * in the session's folder and shown in the timeline (fetched back by hash, also after a reload);
 * the model, which takes no images ('scripted-model'), gets a clear text note for each instead.
 * Screenshot: test-results/web-images.png.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { makePng } from '../test/support/png'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import type { Page } from 'playwright-core'
import { saveScreenshot } from './support/browser'
import { openPage, useBrowser } from './support/fixtures'
import { gotoApp } from './support/web-app'

/** Paste (into the textarea) or drop (on the composer) a PNG file named `name` in the page, as the browser would deliver it. */
async function deliver(page: Page, how: 'paste' | 'drop', name: string, png: Buffer): Promise<void> {
  await page.evaluate(
    ({ how, name, b64 }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
      const dt = new DataTransfer()
      dt.items.add(new File([bytes], name, { type: 'image/png' }))
      const init = { bubbles: true, cancelable: true }
      if (how === 'paste') document.querySelector('[data-testid="composer-input"]')!.dispatchEvent(new ClipboardEvent('paste', { ...init, clipboardData: dt }))
      else document.querySelector('[data-testid="composer"]')!.dispatchEvent(new DragEvent('drop', { ...init, dataTransfer: dt }))
    },
    { how, name, b64: png.toString('base64') }
  )
}

/** The natural sizes of the loaded thumbnails in the user's message row (0 while one is still loading). */
const thumbSizes = (page: Page): Promise<string[]> =>
  page.$$eval('[data-testid="user-message"] [data-testid="image-thumb"] img', (imgs) => imgs.map((i) => `${(i as HTMLImageElement).naturalWidth}x${(i as HTMLImageElement).naturalHeight}`))

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: images in the composer and the timeline', () => {
  const chromium = useBrowser({ guestImage: true })

  it('a pasted and a dropped PNG go with the message, are stored once and shown as thumbnails, also after a reload', async () => {
    const app = await chromium.startApp({ script: [{ text: 'I cannot see images, but I read your notes.' }] })
    const repo = await makeTestRepo({ 'README.md': '# Demo\n' })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo, { consoleErrors: true })
    const pasted = makePng(3, 2, [250, 0, 0])
    const dropped = makePng(4, 5, [0, 0, 250])
    await deliver(page, 'paste', 'pasted.png', pasted)
    await deliver(page, 'drop', 'dropped.png', dropped)
    await expect.poll(() => page.locator('[data-testid="composer-images"] img').count(), { timeout: 10_000 }).toBe(2)
    await page.getByTestId('composer-input').fill('What do these show?')
    await page.getByTestId('send-button').click()
    await page.getByTestId('turn-end').waitFor({ timeout: 120_000 })
    // the composer is empty again; the message row shows both images, fetched back from the session's folder
    expect(await page.locator('[data-testid="composer-images"]').count()).toBe(0)
    await expect.poll(() => thumbSizes(page), { timeout: 10_000 }).toEqual(['3x2', '4x5'])
    expect(await page.getByTestId('user-message').textContent()).toContain('What do these show?')
    await saveScreenshot(page, 'web-images.png')

    // stored once each in the session's folder
    const [session] = readdirSync(join(app.dataDir, 'sessions'))
    expect(readdirSync(join(app.dataDir, 'sessions', session!, 'images'))).toHaveLength(2)
    // this model takes no images: it got a note for each, and no image part
    const user = (app.model.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> }).messages.find((m) => m.role === 'user')!
    const sent = JSON.stringify(user.content)
    expect(sent).not.toContain('image_url')
    expect(sent).toContain('[image: pasted.png 3x2')
    expect(sent).toContain('[image: dropped.png 4x5')
    expect(sent).toContain('not shown: the model in use does not take images')

    // a reload rebuilds the timeline from the log: the thumbnails come back by hash
    await gotoApp(page, app.host.url)
    await expect.poll(() => thumbSizes(page), { timeout: 20_000 }).toEqual(['3x2', '4x5'])
    expect(pageErrors).toEqual([])
  }, 240_000)
})
