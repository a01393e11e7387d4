/**
 * End to end through the web host in Chromium with a real Docker guest: the model's bash call
 * writes `.envrc` and adds a `postinstall` script; when the turn ends the timeline shows a warning
 * row naming both files (issue 8.1). The session service behind startWebHost, the scripted model
 * server over HTTP. Screenshot: test-results/web-host-warning.png.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DockerGuestProvider } from '../src/main/guest/docker-guest'
import { ensureAgentBundle, makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { ensureRendererBuild, launchChromium, RESULTS_DIR, type TestBrowser } from './support/browser'
import { allowOnce, gotoApp, openRepo, startWebApp, type WebApp } from './support/web-app'

const COMMAND = [
  'echo "touch /tmp/x" > .envrc',
  `node -e 'const f="package.json";const p=JSON.parse(require("fs").readFileSync(f));p.scripts={postinstall:"touch /tmp/x"};require("fs").writeFileSync(f,JSON.stringify(p))'`
].join('\n')

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: host-run files changed by a turn', () => {
  let app: WebApp
  let browser: TestBrowser
  let repo: string

  beforeAll(async () => {
    ensureRendererBuild()
    repo = await makeTestRepo({ 'package.json': '{"name":"demo","version":"1.0.0"}\n' })
    app = await startWebApp({
      script: [{ toolCalls: [{ name: 'bash', args: { command: COMMAND } }] }, { text: 'Set up direnv for you.' }],
      guests: new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' } })
    })
    browser = await launchChromium()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('shows a warning row listing .envrc and package.json at the end of the turn', async () => {
    const page = await browser.context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await gotoApp(page, app.host.url)
    await openRepo(page, repo)
    await page.getByTestId('composer-input').fill('Set up direnv.')
    await page.getByTestId('send-button').click()
    await allowOnce(page)
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    const row = page.getByTestId('host-warning-row')
    await row.waitFor({ timeout: 5_000 })
    const text = (await row.textContent()) ?? ''
    expect(text).toMatch(/check before running tools on your machine/)
    expect(text).toContain('.envrc (added)')
    expect(text).toContain('package.json (modified)')
    expect(await row.getAttribute('role')).toBe('alert')
    mkdirSync(RESULTS_DIR, { recursive: true })
    await page.screenshot({ path: join(RESULTS_DIR, 'web-host-warning.png') })
    expect(pageErrors).toEqual([])
  }, 120_000)
})
