/**
 * End to end through the web host in Chromium with a real Docker guest and a 20k-token window: a
 * turn whose reported prompt crosses 80% compacts before its next request; the timeline keeps every
 * row, marks the compacted ones and says "compacted …k → …k tokens"; the context line under the
 * timeline reads "context 60% of 20k"; the Compact button compacts again (op `compact`).
 * Screenshot: test-results/web-compaction.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useWebApp } from './support/fixtures'
import { allowOnce, sendMessage } from './support/web-app'

const SUMMARY = '## Intent\nkeep going\n## Next step\nfinish'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: compaction in the timeline', () => {
  const web = useWebApp({
    files: { 'a.txt': 'alpha\n' },
    env: { CORTEX_CONTEXT_WINDOW: '20000' }, // read when the session opens
    script: [
      { toolCalls: [{ name: 'bash', args: { command: 'echo OLD-ROW-MARKER' } }], usage: { input: 17_000 } },
      { text: SUMMARY }, // the summariser
      { text: 'Finished the work.', usage: { input: 12_000 } },
      { text: SUMMARY } // the Compact button
    ]
  })

  it('marks the compacted rows, shows the compaction and the context use, and compacts on the button', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await sendMessage(page, 'Do the work.')
    await allowOnce(page) // the app asks before bash (approval policy `commands`)
    await page.getByTestId('turn-end').first().waitFor({ timeout: 60_000 })
    const notices = await page.getByTestId('notice-row').allTextContents()
    expect(notices.some((n) => /^compacted \d+(\.\d)?k → \d+(\.\d)?k tokens/.test(n))).toBe(true)
    // the rows before the compaction stay, marked compacted; the ones after it are not
    expect((await page.locator('[data-compacted="true"]').allTextContents()).join('\n')).toContain('OLD-ROW-MARKER')
    expect((await page.locator('[data-compacted="true"]').allTextContents()).join('\n')).not.toContain('Finished the work.')
    expect(await page.getByTestId('context-label').textContent()).toBe('context 60% of 20k')
    await saveScreenshot(page, 'web-compaction.png')

    await page.getByTestId('compact-button').click()
    await page.getByTestId('turn-end').nth(1).waitFor({ timeout: 60_000 })
    const after = await page.getByTestId('notice-row').allTextContents()
    expect(after.filter((n) => n.startsWith('compacted ')), JSON.stringify(after)).toHaveLength(2)
    expect(web.app.model.requests).toHaveLength(4)
    expect(pageErrors).toEqual([])
  })
})
