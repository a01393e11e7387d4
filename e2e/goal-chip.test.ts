/**
 * End to end through the web host in Chromium with a real Docker guest: the composer's Goal… form
 * sets a goal (text, turn budget 2), the harness runs two turns toward it, and the chip reads
 * "Goal · 2/2 · budget spent"; Clear removes it. Screenshot: test-results/web-goal.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useWebApp } from './support/fixtures'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: the goal chip', () => {
  const web = useWebApp({
    files: { 'a.txt': 'x\n' },
    script: [{ text: 'First pass done.' }, { text: 'Second pass done.' }, { text: 'a third turn' }]
  })

  it('sets a goal from the composer, shows its progress, ends budget spent after 2 turns, clears', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await page.getByTestId('goal-new').click()
    await page.getByTestId('goal-text').fill('tidy the repository')
    await page.getByTestId('goal-turns').fill('2')
    await page.getByTestId('goal-set').click()
    await expect.poll(() => page.getByTestId('goal-chip').textContent(), { timeout: 120_000 }).toBe('Goal · 2/2 · budget spent')
    expect(web.app.model.requests).toHaveLength(2)
    await saveScreenshot(page, 'web-goal.png')
    await page.getByTestId('goal-clear').click()
    await page.getByTestId('goal-new').waitFor()
    expect(pageErrors).toEqual([])
  }, 240_000)
})
