/**
 * End to end through the web host in Chromium with a real Docker guest: the repository's AGENTS.md
 * is announced in the timeline ("instructions loaded from AGENTS.md") and the turn's footer shows its
 * token usage (no cost: the scripted model is not in the price table). Screenshot:
 * test-results/web-turn-usage.png.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DockerGuestProvider } from '../src/main/guest/docker-guest'
import { ensureAgentBundle, makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { ensureRendererBuild, launchChromium, RESULTS_DIR, type TestBrowser } from './support/browser'
import { gotoApp, openRepo, startWebApp, type WebApp } from './support/web-app'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: instructions notice and turn usage footer', () => {
  let app: WebApp
  let browser: TestBrowser
  let repo: string

  beforeAll(async () => {
    ensureRendererBuild()
    repo = await makeTestRepo({ 'AGENTS.md': 'Answer briefly. MARKER-E2E\n' })
    app = await startWebApp({
      script: [{ text: 'Brief answer.' }],
      guests: new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' } })
    })
    browser = await launchChromium()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('shows "instructions loaded from AGENTS.md" and the usage in the turn footer', async () => {
    const page = await browser.context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await gotoApp(page, app.host.url)
    await openRepo(page, repo)
    await page.getByTestId('composer-input').fill('Say hi.')
    await page.getByTestId('send-button').click()
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    expect(await page.getByTestId('notice-row').allTextContents()).toContain('instructions loaded from AGENTS.md')
    const footer = (await page.getByTestId('turn-usage').textContent()) ?? ''
    expect(footer).toMatch(/\d+ in · \d+ out$/)
    expect(footer).not.toContain('$')
    expect(JSON.stringify(app.model.requests[0]?.body)).toContain('MARKER-E2E')
    mkdirSync(RESULTS_DIR, { recursive: true })
    await page.screenshot({ path: join(RESULTS_DIR, 'web-turn-usage.png') })
    expect(pageErrors).toEqual([])
  })
})
