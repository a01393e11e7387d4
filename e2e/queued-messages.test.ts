/**
 * End to end through the web host in Chromium with a real Docker guest: while a turn waits (here on
 * the approval of its bash call, a hold that needs no timing), the composer stays usable; two
 * messages sent then show as queued, one is removed with its × button, and after the command runs
 * the other reaches the model as its own user message right after the tool result (issue 9.5).
 * The session service behind startWebHost, the scripted model server over HTTP.
 * Screenshot: test-results/web-queued.png.
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useWebApp } from './support/fixtures'
import { allowOnce } from './support/web-app'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: messages typed during a turn', () => {
  const web = useWebApp({
    files: { 'a.txt': 'x\n' },
    script: [{ toolCalls: [{ name: 'bash', args: { command: 'echo ticked' } }] }, { text: 'Still here.' }]
  })

  it('queues messages during a turn, removes one, and delivers the other at the next step', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    const input = page.getByTestId('composer-input')
    await input.fill('Run the slow ticker')
    await page.getByTestId('send-button').click()
    // the turn now waits on the approval of its bash call: the composer still takes messages
    await page.locator('[data-testid="approval-card"][data-status="waiting"]').waitFor({ timeout: 60_000 })
    await page.getByTestId('stop-button').waitFor()
    expect(await page.getByTestId('send-button').textContent()).toBe('Queue')
    await input.fill('scratch this one')
    await page.getByTestId('send-button').click()
    await input.fill('Are you still there?')
    await input.press('Enter')
    await expect.poll(() => page.getByTestId('queued-message').allTextContents()).toEqual(['queuedscratch this one×', 'queuedAre you still there?×'])
    await page.getByTestId('queued-message').filter({ hasText: 'scratch this one' }).getByTestId('remove-queued').click()
    await expect.poll(() => page.getByTestId('queued-message').allTextContents()).toEqual(['queuedAre you still there?×'])
    await saveScreenshot(page, 'web-queued.png')

    expect(await allowOnce(page)).toBe('echo ticked')
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    expect(await page.getByTestId('queued-message').count()).toBe(0)
    expect(await page.getByTestId('user-message').allTextContents()).toEqual(['Run the slow ticker', 'Are you still there?'])
    const sent = (web.app.model.requests[1]?.body as { messages: Array<{ role: string; content: unknown }> }).messages.filter((m) => m.role !== 'system')
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(sent[3]?.content).toBe('Are you still there?')
    expect(web.app.model.requests).toHaveLength(2)
    expect(pageErrors).toEqual([])
    await page.close()
  }, 180_000)
})
