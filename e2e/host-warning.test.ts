/**
 * End to end through the web host in Chromium with a real Docker guest: the model's bash call
 * writes `.envrc` and adds a `postinstall` script; when the turn ends the timeline shows a warning
 * row naming both files (issue 8.1). The session service behind startWebHost, the scripted model
 * server over HTTP. Screenshot: test-results/web-host-warning.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useWebApp } from './support/fixtures'
import { allowOnce, sendMessage } from './support/web-app'

const COMMAND = [
  'echo "touch /tmp/x" > .envrc',
  `node -e 'const f="package.json";const p=JSON.parse(require("fs").readFileSync(f));p.scripts={postinstall:"touch /tmp/x"};require("fs").writeFileSync(f,JSON.stringify(p))'`
].join('\n')

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: host-run files changed by a turn', () => {
  const web = useWebApp({
    files: { 'package.json': '{"name":"demo","version":"1.0.0"}\n' },
    script: [{ toolCalls: [{ name: 'bash', args: { command: COMMAND } }] }, { text: 'Set up direnv for you.' }]
  })

  it('shows a warning row listing .envrc and package.json at the end of the turn', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await sendMessage(page, 'Set up direnv.')
    await allowOnce(page)
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    const row = page.getByTestId('host-warning-row')
    await row.waitFor({ timeout: 5_000 })
    const text = (await row.textContent()) ?? ''
    expect(text).toMatch(/check before running tools on your machine/)
    expect(text).toContain('.envrc (added)')
    expect(text).toContain('package.json (modified)')
    expect(await row.getAttribute('role')).toBe('alert')
    await saveScreenshot(page, 'web-host-warning.png')
    expect(pageErrors).toEqual([])
  }, 120_000)
})
