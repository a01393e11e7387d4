/**
 * An API key entered in the browser host's Settings (issue 23, item 11): stored on the host in the
 * data folder's `host-keys.json` (0600, never in settings.json), sent by the next session's request
 * to the model (the scripted model server sees it in `authorization`), never sent back to the page
 * (no WebSocket frame or HTTP response the page receives holds it; the form only says a key is
 * stored), and removable. Chromium through the web host, the real session service with the file key
 * store `cortex serve` uses, and the scripted model server; no guest is used.
 * Screenshot: test-results/settings-web-key.png.
 */
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fileSecrets, HOST_KEYS_FILE } from '../src/main/session'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { newPage, refusingGuests, useBrowser } from './support/fixtures'
import { gotoApp, openRepo, sendMessage } from './support/web-app'

const KEY = 'sk-web-key-4f1c9e2a7b'

describe.skipIf(skipWithoutChromium())('an API key entered in the browser host', () => {
  const chromium = useBrowser()

  it('is stored 0600 on the host, used by the next request, never sent back, and removable', async () => {
    const repo = await makeTestRepo({}, { git: false })
    const app = await chromium.startApp({
      script: [{ text: 'Answered with the key.' }, { text: 'Answered without it.' }],
      guests: refusingGuests(),
      eagerGuest: false,
      models: ['scripted-model'],
      secrets: fileSecrets
    })
    // every WebSocket frame and HTTP response body the page sends or receives, from before it loads
    const { page, pageErrors } = await newPage(chromium.browser)
    const traffic = { sent: [] as string[], received: [] as string[] }
    const bodies: Promise<void>[] = []
    page.on('websocket', (ws) => {
      ws.on('framesent', (f) => traffic.sent.push(String(f.payload)))
      ws.on('framereceived', (f) => traffic.received.push(String(f.payload)))
    })
    page.on('response', (res) => {
      bodies.push(res.body().then((b) => void traffic.received.push(b.toString('latin1')), () => undefined))
    })
    await gotoApp(page, app.host.url)
    const settings = async (): Promise<void> => {
      await page.getByTestId('open-settings').click()
      await page.getByTestId('settings-inforce').waitFor({ timeout: 10_000 })
    }

    await settings()
    expect(await page.getByTestId('settings-apiKey').getAttribute('placeholder')).toBe('no key stored')
    await page.getByTestId('settings-apiKey').fill(KEY)
    await page.getByTestId('settings-save').click()
    await expect.poll(() => page.getByTestId('settings-status').textContent(), { timeout: 10_000 }).toMatch(/^Saved\. New sessions use/)
    // the form says only that a key is stored
    expect(await page.getByTestId('settings-apiKey').inputValue()).toBe('')
    expect(await page.getByTestId('settings-apiKey').getAttribute('placeholder')).toBe('a key is stored (type to replace it)')
    await saveScreenshot(page, 'settings-web-key.png')
    const keyFile = join(app.dataDir, HOST_KEYS_FILE)
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(readFileSync(keyFile, 'utf8')).toContain(KEY)
    expect(readFileSync(join(app.dataDir, 'settings.json'), 'utf8')).not.toContain(KEY)
    await page.getByTestId('settings-model').press('Escape')

    // the next session's request carries it
    await openRepo(page, repo)
    await sendMessage(page, 'Hello?')
    await expect.poll(() => page.getByTestId('assistant-text').allTextContents(), { timeout: 30_000 }).toContain('Answered with the key.')
    const posts = (): typeof app.model.requests => app.model.requests.filter((r) => r.method === 'POST')
    expect(posts().at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`)

    // reopened, the form still holds no key; Remove deletes it from the file and from later sessions
    await settings()
    expect(await page.getByTestId('settings-apiKey').inputValue()).toBe('')
    await page.getByTestId('settings-key-remove').click()
    await expect.poll(() => page.getByTestId('settings-status').textContent(), { timeout: 10_000 }).toBe('Key removed.')
    expect(await page.getByTestId('settings-apiKey').getAttribute('placeholder')).toBe('no key stored')
    expect(readFileSync(keyFile, 'utf8')).not.toContain(KEY)
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    const next = await app.service.openSession({ repo })
    await app.service.submit({ sessionId: next.id, op: { type: 'user_message', text: 'And now?' } })
    await app.service.idle(next.id)
    expect(posts().at(-1)?.headers.authorization).toBeUndefined()

    // the key went from the page to the host once (the save) and never came back
    await Promise.all(bodies)
    expect(traffic.received.length).toBeGreaterThan(3)
    expect(traffic.sent.filter((f) => f.includes(KEY))).toHaveLength(1)
    expect(traffic.received.filter((f) => f.includes(KEY))).toEqual([])
    expect(traffic.received.some((f) => f.includes('"keySaved":true'))).toBe(true)
    expect(pageErrors).toEqual([])
    await page.close()
  }, 90_000)
})
