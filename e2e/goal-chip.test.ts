/**
 * End to end through the web host in Chromium with a real Docker guest: the composer's Goal… form
 * sets a goal (text, turn budget 2), the harness runs two turns toward it, and the chip reads
 * "Goal · 2/2 · budget spent"; Clear removes it. Screenshot: test-results/web-goal.png.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DockerGuestProvider } from '../src/main/guest/docker-guest'
import { ensureAgentBundle, makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { ensureRendererBuild, launchChromium, RESULTS_DIR, type TestBrowser } from './support/browser'
import { gotoApp, openRepo, startWebApp, type WebApp } from './support/web-app'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: the goal chip', () => {
  let app: WebApp
  let browser: TestBrowser
  let repo: string

  beforeAll(async () => {
    ensureRendererBuild()
    repo = await makeTestRepo({ 'a.txt': 'x\n' })
    app = await startWebApp({
      script: [{ text: 'First pass done.' }, { text: 'Second pass done.' }, { text: 'a third turn' }],
      guests: new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' } })
    })
    browser = await launchChromium()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('sets a goal from the composer, shows its progress, ends budget spent after 2 turns, clears', async () => {
    const page = await browser.context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await gotoApp(page, app.host.url)
    await openRepo(page, repo)
    await page.getByTestId('goal-new').click()
    await page.getByTestId('goal-text').fill('tidy the repository')
    await page.getByTestId('goal-turns').fill('2')
    await page.getByTestId('goal-set').click()
    await expect.poll(() => page.getByTestId('goal-chip').textContent(), { timeout: 120_000 }).toBe('Goal · 2/2 · budget spent')
    expect(app.model.requests).toHaveLength(2)
    mkdirSync(RESULTS_DIR, { recursive: true })
    await page.screenshot({ path: join(RESULTS_DIR, 'web-goal.png') })
    await page.getByTestId('goal-clear').click()
    await page.getByTestId('goal-new').waitFor()
    expect(pageErrors).toEqual([])
  }, 240_000)
})
