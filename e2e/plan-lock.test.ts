/**
 * End to end through the web host in Chromium: in Plan mode the model publishes a plan; the app
 * shows "Plan — locked until you accept" with Accept and Reject-with-feedback; Reject sends the
 * feedback (the model's next request carries it, Plan mode stays); Accept switches to Agent, the
 * steps become the todos, and the plan is carried out in a real guest (the file appears on the
 * host). The mode picker offers Spec. Real session service, real Docker guest, scripted model.
 * Screenshots: test-results/web-plan-lock.png (locked), test-results/web-plan-accepted.png.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createDefaultGuestProvider } from '../src/main/session'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { offeredToolNames } from '../test/support/scripted-model-server'
import { saveScreenshot } from './support/browser'
import { openPage, useWebApp } from './support/fixtures'
import { expectTurnEnds, sendMessage } from './support/web-app'

const PLAN = { title: 'Greeting', summary: 'Write hello.txt.', steps: ['Write hello.txt', 'Check hello.txt'], mermaid: 'flowchart TD\n  A[Write] --> B[Check]' }

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: the plan lock', () => {
  const web = useWebApp({
    files: { 'a.txt': 'a\n' },
    script: [
      { toolCalls: [{ name: 'plan', args: PLAN }] },
      { text: 'The plan is ready.' },
      { toolCalls: [{ name: 'plan', args: { ...PLAN, title: 'Greeting v2' } }] },
      { text: 'Revised.' },
      { toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'hello\n' } }] },
      { text: 'Done.' }
    ],
    guests: () => createDefaultGuestProvider({ warmPool: 0 })
  })

  it('shows the lock; Reject sends feedback in Plan mode; Accept switches to Agent with the steps as todos and runs the plan', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    expect(await page.getByTestId('mode-select').locator('option').allTextContents()).toEqual(['Ask', 'Plan', 'Spec', 'Agent'])
    await page.getByTestId('mode-select').selectOption('plan')
    await sendMessage(page, 'Plan a greeting.')
    await expectTurnEnds(page, 1)

    await expect.poll(() => page.getByTestId('lock-label').textContent()).toBe('Plan — locked until you accept')
    await expect.poll(() => page.getByTestId('plan-title').textContent()).toBe('Greeting')
    await page.getByTestId('plan-diagram').waitFor({ timeout: 30_000 })
    await saveScreenshot(page, 'web-plan-lock.png')

    expect(await page.getByTestId('lock-reject').isDisabled()).toBe(true) // no feedback typed yet
    await page.getByTestId('lock-feedback').fill('Mention the file name in the title')
    await page.getByTestId('lock-reject').click()
    await expectTurnEnds(page, 2)
    const rejected = web.app.model.requests[2]!
    expect(JSON.stringify(rejected.body)).toContain('Mention the file name in the title')
    expect(offeredToolNames(rejected)).toEqual(['read_file', 'glob', 'grep', 'plan', 'task'])
    expect(await page.getByTestId('mode-select').inputValue()).toBe('plan')
    await expect.poll(() => page.getByTestId('plan-title').textContent()).toBe('Greeting v2')

    await page.getByTestId('lock-accept').click()
    await expectTurnEnds(page, 3)
    expect(await page.getByTestId('lock-bar').count()).toBe(0)
    expect(await page.getByTestId('mode-select').inputValue()).toBe('agent')
    await page.getByTestId('tab-todos').click()
    expect(await page.getByTestId('todo-list').locator('li').allTextContents()).toEqual([expect.stringContaining('Write hello.txt'), expect.stringContaining('Check hello.txt')])
    expect(offeredToolNames(web.app.model.requests[4]!)).toContain('write_file')
    expect(readFileSync(join(web.repo, 'hello.txt'), 'utf8')).toBe('hello\n')
    await saveScreenshot(page, 'web-plan-accepted.png')
    expect(pageErrors).toEqual([])
  })
})
