/**
 * End to end through the web host in Chromium with a real Docker guest and the scripted model:
 * a bash call's output is in its row and the Terminal tab, and both show it again after a reload
 * (the output is kept with the session: tool_call_finished.output); and the Terminal tab's Shell
 * pane is a real shell in the guest — typing `pwd` prints the repository path. Screenshots:
 * test-results/terminal-after-reload.png, test-results/terminal-shell.png.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useWebApp } from './support/fixtures'
import { allowOnce, sendMessage, waitConnected } from './support/web-app'

/** The text xterm shows in `testId`'s terminal (its DOM rows), one string per row, right-trimmed. */
async function terminalRows(page: Page, testId: string): Promise<string[]> {
  return page
    .getByTestId(testId)
    .locator('.xterm-rows > div')
    .evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').replace(/\s+$/, '')))
}

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: terminal output kept across a reload, and a shell in the guest', () => {
  const web = useWebApp({
    files: { 'README.md': 'hello\n' },
    script: [
      { text: 'Running it.', toolCalls: [{ name: 'bash', args: { command: "printf '\\033[32mgreen-MARK\\033[0m\\n'; echo line-$((6*7)); echo err-MARK >&2" } }] },
      { text: 'Done.' }
    ]
  })

  it('shows a bash call\'s output in its row and the terminal, again after a reload', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await sendMessage(page, 'Run it.')
    await allowOnce(page)
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    const row = page.locator('[data-testid="tool-row"][data-tool-name="bash"]')
    const live = (await row.getByTestId('tool-result').textContent()) ?? ''
    expect(live).toContain('green-MARK')
    expect(live).not.toContain('[32m')
    await page.getByTestId('tab-terminal').click()
    await expect.poll(async () => (await terminalRows(page, 'terminal')).join('\n'), { timeout: 10_000 }).toContain('line-42')

    await page.reload()
    await waitConnected(page)
    await page.locator('[data-testid="tool-row"][data-tool-name="bash"]').waitFor({ timeout: 15_000 })
    await page.getByTestId('tab-terminal').click()
    await expect.poll(async () => (await terminalRows(page, 'terminal')).join('\n'), { timeout: 10_000 }).toContain('line-42')
    const rows = (await terminalRows(page, 'terminal')).join('\n')
    expect(rows).toContain('green-MARK')
    expect(rows).toContain('err-MARK')
    expect(rows).toContain('$ printf')
    await saveScreenshot(page, 'terminal-after-reload.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)

  it('the Shell pane is a shell in the guest: pwd prints the repository path', async () => {
    // its own session on the repository, so the test stands alone
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await page.getByTestId('tab-terminal').click()
    await page.getByTestId('terminal-tab-shell').click()
    await page.locator('[data-testid="shell-terminal"][data-shell-state="open"]').waitFor({ timeout: 30_000 })
    // a prompt first, then the keystrokes
    await expect.poll(async () => (await terminalRows(page, 'shell-terminal')).join('\n'), { timeout: 10_000 }).toMatch(/\$$/m)
    await page.getByTestId('shell-terminal').click()
    await page.keyboard.type('pwd')
    await page.keyboard.press('Enter')
    await expect.poll(async () => await terminalRows(page, 'shell-terminal'), { timeout: 15_000 }).toContain(web.repo)
    expect((await terminalRows(page, 'shell-terminal')).some((r) => r.endsWith('$ pwd'))).toBe(true)
    await saveScreenshot(page, 'terminal-shell.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)
})
