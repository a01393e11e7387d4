/**
 * End to end through the web host in Chromium: Spec mode drafts requirements, design and tasks, one
 * document at a time; each shows in the Plan tab with "Spec <stage> — locked until you accept" and
 * Accept; accepting the tasks switches to Agent with the tasks as todos. The spec tool needs no
 * guest, so a provider that refuses to start one proves none is touched. Real session service,
 * scripted model over HTTP. Screenshot: test-results/web-spec-lock.png (requirements awaiting).
 */
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, useWebApp } from './support/fixtures'
import { expectTurnEnds, sendMessage } from './support/web-app'

const REQUIREMENTS = '## User story\nAs a user, I want a greeting, so that I feel welcome.\n\n### Acceptance criteria\n1. WHEN the app starts THEN it SHALL print "hello".'
const spec = (stage: string, markdown: string, tasks?: string[]) => ({ toolCalls: [{ name: 'spec', args: { stage, title: `Greeting ${stage}`, markdown, ...(tasks ? { tasks } : {}) } }] })

describe.skipIf(skipWithoutChromium())('web host: the spec lock', () => {
  const web = useWebApp({
    git: false, // an empty folder owned by the test user (a root-owned repository is refused)
    script: [
      spec('requirements', REQUIREMENTS), { text: 'Requirements ready.' },
      spec('design', '## Design\nA `greet()` function in src/greet.ts.'), { text: 'Design ready.' },
      spec('tasks', '- [ ] Add greet()\n- [ ] Test greet()', ['Add greet()', 'Test greet()']), { text: 'Tasks ready.' },
      { text: 'Implementing.' }
    ],
    guests: refusingGuests,
    eagerGuest: false
  })

  it('locks each document until Accept, then switches to Agent with the tasks as todos', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await page.getByTestId('mode-select').selectOption('spec')
    await sendMessage(page, 'Spec a greeting.')
    await expectTurnEnds(page, 1)

    await expect.poll(() => page.getByTestId('lock-label').textContent()).toBe('Spec requirements — locked until you accept')
    await page.getByTestId('tab-plan').click()
    expect(await page.getByTestId('spec-view').getAttribute('data-stage')).toBe('requirements')
    expect(await page.getByTestId('spec-view').locator('h3, h4, li').allTextContents()).toEqual(expect.arrayContaining(['Greeting requirements', 'Acceptance criteria']))
    await saveScreenshot(page, 'web-spec-lock.png')

    for (const [n, stage] of [[2, 'design'], [3, 'tasks']] as const) {
      await page.getByTestId('lock-accept').click()
      await expectTurnEnds(page, n)
      await expect.poll(() => page.getByTestId('lock-label').textContent()).toBe(`Spec ${stage} — locked until you accept`)
      expect(await page.getByTestId('spec-view').getAttribute('data-stage')).toBe(stage)
    }
    await page.getByTestId('lock-accept').click()
    await expectTurnEnds(page, 4)
    expect(await page.getByTestId('lock-bar').count()).toBe(0)
    expect(await page.getByTestId('mode-select').inputValue()).toBe('agent')
    await page.getByTestId('tab-todos').click()
    expect(await page.getByTestId('todo-list').locator('li').allTextContents()).toEqual([expect.stringContaining('Add greet()'), expect.stringContaining('Test greet()')])
    expect(JSON.stringify(web.app.model.requests.at(-1)?.body)).toContain('The spec is accepted')
    expect(pageErrors).toEqual([])
  })
})
