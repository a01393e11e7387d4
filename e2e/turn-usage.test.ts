/**
 * End to end through the web host in Chromium with a real Docker guest: the repository's AGENTS.md
 * is announced in the timeline ("instructions loaded from AGENTS.md") and the turn's footer shows its
 * token usage (no cost: the scripted model is not in the price table). Screenshot:
 * test-results/web-turn-usage.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useWebApp } from './support/fixtures'
import { sendMessage } from './support/web-app'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: instructions notice and turn usage footer', () => {
  const web = useWebApp({ files: { 'AGENTS.md': 'Answer briefly. MARKER-E2E\n' }, script: [{ text: 'Brief answer.' }] })

  it('shows "instructions loaded from AGENTS.md" and the usage in the turn footer', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await sendMessage(page, 'Say hi.')
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    expect(await page.getByTestId('notice-row').allTextContents()).toContain('instructions loaded from AGENTS.md')
    const footer = (await page.getByTestId('turn-usage').textContent()) ?? ''
    expect(footer).toMatch(/\d+ in · \d+ out$/)
    expect(footer).not.toContain('$')
    expect(JSON.stringify(web.app.model.requests[0]?.body)).toContain('MARKER-E2E')
    await saveScreenshot(page, 'web-turn-usage.png')
    expect(pageErrors).toEqual([])
  })
})
