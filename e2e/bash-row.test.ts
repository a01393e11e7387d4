/**
 * A finished bash call's row in the timeline (issue 23, item 11), in Chromium through the web host
 * with a real Docker guest: it shows "exit N · T" and the output, not the model-facing labels
 * (`exit_code:`, `duration_ms:`, `stdout:` printed as text), and a non-zero exit is marked failed
 * (✗), not ✓. Screenshot: test-results/bash-row.png.
 */
import { describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useBrowser } from './support/fixtures'
import { allowOnce, sendMessage } from './support/web-app'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('a bash row', () => {
  const chromium = useBrowser({ guestImage: true })

  it('shows the exit code, time and output as fields, and a failed command as failed', async () => {
    const repo = await makeTestRepo({ 'README.md': '# Bash\n' })
    const app = await chromium.startApp({
      script: [
        { toolCalls: [{ name: 'bash', args: { command: 'echo fine-$((6*7))' } }] },
        { toolCalls: [{ name: 'bash', args: { command: 'echo out-$((6*7)); echo err-$((6*7)) >&2; exit 3' } }] },
        { text: 'One failed.' }
      ]
    })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo)
    await sendMessage(page, 'run both')
    await allowOnce(page)
    await allowOnce(page)
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    const rows = page.locator('[data-testid="tool-row"][data-tool-name="bash"]')
    await expect.poll(() => rows.count()).toBe(2)
    const ok = rows.nth(0)
    const failed = rows.nth(1)
    for (const row of [ok, failed]) {
      const text = (await row.textContent()) ?? ''
      expect(text).not.toMatch(/exit_code:|duration_ms:|stdout:/)
    }
    expect(await ok.getAttribute('data-status')).toBe('ok')
    expect(await ok.getByTestId('bash-summary').textContent()).toMatch(/^exit 0 · \d+(\.\d)? m?s$/)
    expect(await ok.getByTestId('tool-result').textContent()).toBe('fine-42')

    expect(await failed.getAttribute('data-status')).toBe('error')
    expect(await failed.locator('.tool-status').textContent()).toBe('✗')
    expect(await failed.getByTestId('bash-summary').textContent()).toMatch(/^exit 3 · /)
    const out = (await failed.getByTestId('tool-result').textContent()) ?? ''
    expect(out).toContain('out-42')
    expect(out).toContain('err-42')
    await saveScreenshot(page, 'bash-row.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 180_000)
})
