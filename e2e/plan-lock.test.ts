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
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { createDefaultGuestProvider } from '../src/main/session'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { offeredToolNames } from '../test/support/scripted-model-server'
import { ensureRendererBuild, launchChromium, RESULTS_DIR, type TestBrowser } from './support/browser'
import { gotoApp, openRepo, startWebApp, type WebApp } from './support/web-app'

const PLAN = { title: 'Greeting', summary: 'Write hello.txt.', steps: ['Write hello.txt', 'Check hello.txt'], mermaid: 'flowchart TD\n  A[Write] --> B[Check]' }

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: the plan lock', () => {
  let app: WebApp
  let browser: TestBrowser
  let repo: string

  beforeAll(async () => {
    ensureRendererBuild()
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
    app = await startWebApp({
      script: [
        { toolCalls: [{ name: 'plan', args: PLAN }] },
        { text: 'The plan is ready.' },
        { toolCalls: [{ name: 'plan', args: { ...PLAN, title: 'Greeting v2' } }] },
        { text: 'Revised.' },
        { toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'hello\n' } }] },
        { text: 'Done.' }
      ],
      guests: createDefaultGuestProvider({ warmPool: 0 })
    })
    browser = await launchChromium()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  const turnEnds = (page: Page, n: number) => expect.poll(() => page.getByTestId('turn-end').count(), { timeout: 60_000 }).toBe(n)

  it('shows the lock; Reject sends feedback in Plan mode; Accept switches to Agent with the steps as todos and runs the plan', async () => {
    const page: Page = await browser.context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await gotoApp(page, app.host.url)
    await openRepo(page, repo)
    expect(await page.getByTestId('mode-select').locator('option').allTextContents()).toEqual(['Ask', 'Plan', 'Spec', 'Agent'])
    await page.getByTestId('mode-select').selectOption('plan')
    await page.getByTestId('composer-input').fill('Plan a greeting.')
    await page.getByTestId('send-button').click()
    await turnEnds(page, 1)

    await expect.poll(() => page.getByTestId('lock-label').textContent()).toBe('Plan — locked until you accept')
    await expect.poll(() => page.getByTestId('plan-title').textContent()).toBe('Greeting')
    await page.getByTestId('plan-diagram').waitFor({ timeout: 30_000 })
    await page.screenshot({ path: join(RESULTS_DIR, 'web-plan-lock.png') })

    expect(await page.getByTestId('lock-reject').isDisabled()).toBe(true) // no feedback typed yet
    await page.getByTestId('lock-feedback').fill('Mention the file name in the title')
    await page.getByTestId('lock-reject').click()
    await turnEnds(page, 2)
    const rejected = app.model.requests[2]!
    expect(JSON.stringify(rejected.body)).toContain('Mention the file name in the title')
    expect(offeredToolNames(rejected)).toEqual(['read_file', 'glob', 'grep', 'plan'])
    expect(await page.getByTestId('mode-select').inputValue()).toBe('plan')
    await expect.poll(() => page.getByTestId('plan-title').textContent()).toBe('Greeting v2')

    await page.getByTestId('lock-accept').click()
    await turnEnds(page, 3)
    expect(await page.getByTestId('lock-bar').count()).toBe(0)
    expect(await page.getByTestId('mode-select').inputValue()).toBe('agent')
    await page.getByTestId('tab-todos').click()
    expect(await page.getByTestId('todo-list').locator('li').allTextContents()).toEqual([expect.stringContaining('Write hello.txt'), expect.stringContaining('Check hello.txt')])
    expect(offeredToolNames(app.model.requests[4]!)).toContain('write_file')
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello\n')
    await page.screenshot({ path: join(RESULTS_DIR, 'web-plan-accepted.png') })
    expect(pageErrors).toEqual([])
  })
})
