/**
 * Issue 23 item 8 through the web host in Chromium with a real Docker guest and the scripted model:
 * a message queued while the turn waits on an approval comes back into the composer when Stop is
 * pressed (after what is typed there), and no turn starts from it: the model is asked once.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { openPage, useWebApp } from './support/fixtures'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: Stop clears the queue', () => {
  const web = useWebApp({
    files: { 'a.txt': 'x\n' },
    script: [{ toolCalls: [{ name: 'bash', args: { command: 'echo ticked' } }] }, { text: 'a turn from the queue' }]
  })

  it('puts the queued text back into the composer and starts no turn', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    const input = page.getByTestId('composer-input')
    await input.fill('Run the ticker')
    await page.getByTestId('send-button').click()
    await page.locator('[data-testid="approval-card"][data-status="waiting"]').waitFor({ timeout: 60_000 })
    await input.fill('and then this')
    await input.press('Enter')
    await expect.poll(() => page.getByTestId('queued-message').allTextContents()).toEqual(['queuedand then this×'])
    await input.fill('half typed')
    await page.getByTestId('stop-button').click()
    await page.getByTestId('turn-end').waitFor({ timeout: 30_000 })
    await expect.poll(() => input.inputValue(), { timeout: 10_000 }).toBe('half typed\nand then this')
    expect(await page.getByTestId('queued-message').count()).toBe(0)
    expect(await page.getByTestId('user-message').allTextContents()).toEqual(['Run the ticker'])
    expect(web.app.model.requests).toHaveLength(1)
    expect(pageErrors).toEqual([])
    await page.close()
  }, 180_000)
})
