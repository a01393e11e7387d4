/**
 * Subagents in the web timeline (ADR 0037), in Chromium through the web host with a real Docker
 * guest: a step that starts two explore subagents shows two task rows, each holding its child's
 * calls as nested rows (none of them at the timeline's top level), and folding a task row hides
 * them. Screenshot: test-results/subagent-rows.png.
 */
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { sentToolResults, type RecordedRequest, type ScriptStep } from '../test/support/scripted-model-server'
import { saveScreenshot } from './support/browser'
import { openPage, useBrowser } from './support/fixtures'
import { sendMessage } from './support/web-app'

const TASKS = { 'SUBAGENT-A: read alpha.txt': 'alpha.txt', 'SUBAGENT-B: read beta.txt': 'beta.txt' } as const

/** The conversation a request continues: its first user message. */
function firstUser(r: RecordedRequest): string {
  const m = (r.body as { messages: Array<{ role: string; content: unknown }> }).messages.find((x) => x.role === 'user')
  return typeof m?.content === 'string' ? m.content : ''
}

/** The parent starts two explorers; each reads its file, then reports. */
function route(r: RecordedRequest): ScriptStep {
  const who = firstUser(r)
  const answered = sentToolResults(r).length > 0
  const file = TASKS[who as keyof typeof TASKS]
  if (file) return answered ? { text: `REPORT: ${file} read` } : { toolCalls: [{ name: 'read_file', args: { path: file } }] }
  if (answered) return { text: 'Both explorers reported.' }
  return {
    toolCalls: Object.keys(TASKS).map((prompt, i) => ({ name: 'task', args: { kind: 'explore', description: i === 0 ? 'read alpha' : 'read beta', prompt } }))
  }
}

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('subagent rows', () => {
  const chromium = useBrowser({ guestImage: true })

  it('nests each subagent\'s calls in its task row, folded with it', async () => {
    const repo = await makeTestRepo({ 'alpha.txt': 'alpha\n', 'beta.txt': 'beta\n' })
    const app = await chromium.startApp({ script: [], route })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo)
    await sendMessage(page, 'explore both files')
    await page.getByTestId('turn-end').waitFor({ timeout: 90_000 })
    const tasks = page.locator('.timeline-item > [data-testid="tool-row"][data-tool-name="task"]')
    await expect.poll(() => tasks.count()).toBe(2)
    for (const [i, file] of [[0, 'alpha.txt'], [1, 'beta.txt']] as const) {
      const task = tasks.nth(i)
      expect(await task.getAttribute('data-status')).toBe('ok')
      const nested = task.getByTestId('subagent-calls').locator('[data-testid="tool-row"]')
      await expect.poll(() => nested.count()).toBe(1)
      expect(await nested.first().getAttribute('data-tool-name')).toBe('read_file')
      expect(await nested.first().getAttribute('data-status')).toBe('ok')
      expect(await nested.first().getByTestId('tool-args').textContent()).toContain(file)
      expect(await task.getByTestId('subagent-count').textContent()).toBe('1 call')
      expect(await task.locator(':scope > .tool-body > [data-testid="tool-result"]').textContent()).toBe(`REPORT: ${file} read`)
    }
    // the children's calls are nowhere at the top level, and their task prompts add no user row
    expect(await page.locator('.timeline-item > [data-testid="tool-row"][data-tool-name="read_file"]').count()).toBe(0)
    expect(await page.getByText('SUBAGENT-A: read alpha.txt', { exact: true }).count()).toBe(0)
    await saveScreenshot(page, 'subagent-rows.png')
    // folding the first task row hides its nested rows; the second keeps them
    await tasks.nth(0).locator(':scope > .tool-head').click()
    await expect.poll(() => tasks.nth(0).getByTestId('subagent-calls').count()).toBe(0)
    expect(await tasks.nth(1).getByTestId('subagent-calls').count()).toBe(1)
    await saveScreenshot(page, 'subagent-rows-folded.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 240_000)
})
