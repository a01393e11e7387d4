/**
 * End to end through the web host in Chromium: Spec mode drafts requirements, design and tasks, one
 * document at a time; each shows in the Plan tab with "Spec <stage> — locked until you accept" and
 * Accept; accepting the tasks switches to Agent with the tasks as todos. The spec tool needs no
 * guest, so a provider that refuses to start one proves none is touched. Real session service,
 * scripted model over HTTP. Screenshot: test-results/web-spec-lock.png (requirements awaiting).
 */
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { CortexError } from '../src/shared/errors'
import { TEST_REPO_GID, TEST_REPO_UID } from '../test/support/repo-owner'
import { skipWithoutChromium } from '../test/support/requirements'
import { ensureRendererBuild, launchChromium, RESULTS_DIR, type TestBrowser } from './support/browser'
import { gotoApp, openRepo, startWebApp, type WebApp } from './support/web-app'

const REQUIREMENTS = '## User story\nAs a user, I want a greeting, so that I feel welcome.\n\n### Acceptance criteria\n1. WHEN the app starts THEN it SHALL print "hello".'
const spec = (stage: string, markdown: string, tasks?: string[]) => ({ toolCalls: [{ name: 'spec', args: { stage, title: `Greeting ${stage}`, markdown, ...(tasks ? { tasks } : {}) } }] })

describe.skipIf(skipWithoutChromium())('web host: the spec lock', () => {
  let app: WebApp
  let browser: TestBrowser
  let repo: string

  beforeAll(async () => {
    ensureRendererBuild()
    repo = mkdtempSync(join(tmpdir(), 'cortex-e2e-spec-repo-'))
    if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID) // a root-owned repository is refused
    app = await startWebApp({
      script: [
        spec('requirements', REQUIREMENTS), { text: 'Requirements ready.' },
        spec('design', '## Design\nA `greet()` function in src/greet.ts.'), { text: 'Design ready.' },
        spec('tasks', '- [ ] Add greet()\n- [ ] Test greet()', ['Add greet()', 'Test greet()']), { text: 'Tasks ready.' },
        { text: 'Implementing.' }
      ],
      guests: { start: () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
      eagerGuest: false
    })
    browser = await launchChromium()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
    if (repo) rmSync(repo, { recursive: true, force: true })
  })

  const turnEnds = (page: Page, n: number) => expect.poll(() => page.getByTestId('turn-end').count(), { timeout: 60_000 }).toBe(n)

  it('locks each document until Accept, then switches to Agent with the tasks as todos', async () => {
    const page: Page = await browser.context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await gotoApp(page, app.host.url)
    await openRepo(page, repo)
    await page.getByTestId('mode-select').selectOption('spec')
    await page.getByTestId('composer-input').fill('Spec a greeting.')
    await page.getByTestId('send-button').click()
    await turnEnds(page, 1)

    await expect.poll(() => page.getByTestId('lock-label').textContent()).toBe('Spec requirements — locked until you accept')
    await page.getByTestId('tab-plan').click()
    expect(await page.getByTestId('spec-view').getAttribute('data-stage')).toBe('requirements')
    expect(await page.getByTestId('spec-view').locator('h3, h4, li').allTextContents()).toEqual(expect.arrayContaining(['Greeting requirements', 'Acceptance criteria']))
    await page.screenshot({ path: join(RESULTS_DIR, 'web-spec-lock.png') })

    for (const [n, stage] of [[2, 'design'], [3, 'tasks']] as const) {
      await page.getByTestId('lock-accept').click()
      await turnEnds(page, n)
      await expect.poll(() => page.getByTestId('lock-label').textContent()).toBe(`Spec ${stage} — locked until you accept`)
      expect(await page.getByTestId('spec-view').getAttribute('data-stage')).toBe(stage)
    }
    await page.getByTestId('lock-accept').click()
    await turnEnds(page, 4)
    expect(await page.getByTestId('lock-bar').count()).toBe(0)
    expect(await page.getByTestId('mode-select').inputValue()).toBe('agent')
    await page.getByTestId('tab-todos').click()
    expect(await page.getByTestId('todo-list').locator('li').allTextContents()).toEqual([expect.stringContaining('Add greet()'), expect.stringContaining('Test greet()')])
    expect(JSON.stringify(app.model.requests.at(-1)?.body)).toContain('The spec is accepted')
    expect(pageErrors).toEqual([])
  })
})
