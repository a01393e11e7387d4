/**
 * A provider error in the browser host gives advice the user can follow there (issue 23, item 11):
 * with nothing listening at the base URL, the error row names the base URL in Settings, not the
 * CLI's `--base-url` flag. Chromium through the web host and the real session service, with a base
 * URL on a loopback port nothing listens on; no guest is used. Screenshot: test-results/host-advice.png.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSessionService } from '../src/main/session'
import { startWebHost } from '../src/web'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium } from '../test/support/requirements'
import { RENDERER_DIR, saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useBrowser } from './support/fixtures'
import { sendMessage } from './support/web-app'

/** A loopback port that was free a moment ago (bound, then released): nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

describe.skipIf(skipWithoutChromium())('provider errors in the browser host', () => {
  const chromium = useBrowser()

  it('name the Settings field, not a command-line flag', async () => {
    const repo = await makeTestRepo({}, { git: false })
    const dataDir = mkdtempSync(join(tmpdir(), 'cortex-e2e-home-'))
    const service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: `http://127.0.0.1:${await closedPort()}/v1` },
      guests: refusingGuests(),
      eagerGuest: false
    })
    const host = await startWebHost({ api: service, rendererDir: RENDERER_DIR, port: 0 })
    try {
      const { page, pageErrors } = await openPage(chromium.browser, { host }, repo)
      await sendMessage(page, 'hello?')
      const row = page.getByTestId('error-row')
      await row.waitFor({ timeout: 60_000 })
      const text = (await row.textContent()) ?? ''
      expect(text).toContain('Cannot reach')
      expect(text).not.toContain('--base-url')
      expect(text).toContain('the base URL in Settings')
      await saveScreenshot(page, 'host-advice.png')
      expect(pageErrors).toEqual([])
      await page.close()
    } finally {
      await host.close()
      await service.shutdown()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
