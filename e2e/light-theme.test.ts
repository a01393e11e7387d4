/**
 * The light theme in Chromium through the web host (issue 23, item 6): under a light system
 * preference the plan's mermaid diagram has dark labels on light nodes (it kept dark-theme colours:
 * light labels, about 1.3:1 on the white page) and the Changes tab's Monaco diff editor is light (it
 * stayed dark); Settings offers system/light/dark, applied at once and remembered by the browser.
 * A real session service, the scripted model, and (for the diff) a real Docker guest with
 * checkpoints. Screenshots: test-results/light-*.png.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, refusingGuests, testGuests, useBrowser } from './support/fixtures'
import { sendMessage } from './support/web-app'

/** WCAG contrast ratio of two computed CSS colours (`rgb(…)`/`rgba(…)`). */
function contrast(a: string, b: string): number {
  const lum = (c: string): number => {
    const [r, g, bl] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const x = Number(v) / 255
      return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (bl ?? 0)
  }
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x)
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05)
}

/** Pick `choice` in Settings' theme field and close the dialog. */
async function pickTheme(page: Page, choice: 'system' | 'light' | 'dark'): Promise<void> {
  await page.getByTestId('open-settings').click()
  await page.getByTestId('settings-theme').selectOption(choice)
  await page.getByTestId('settings-dialog').getByRole('button', { name: 'Close', exact: true }).click()
}

describe.skipIf(skipWithoutChromium())('the light theme', () => {
  const chromium = useBrowser({ guestImage: !skipWithoutDocker() })
  const stores = mkdtempSync(join(tmpdir(), 'cortex-e2e-checkpoints-'))
  afterAll(() => rmSync(stores, { recursive: true, force: true }))

  it('is chosen in Settings, overrides the system, and draws the plan diagram with readable labels', async () => {
    const repo = await makeTestRepo({}, { git: false })
    const diagram = 'flowchart TD\n  A[Read the code] --> B[Change it]\n  B --> C[Test it]'
    const app = await chromium.startApp({
      script: [{ toolCalls: [{ name: 'plan', args: { title: 'Themed plan', summary: 'A diagram.', steps: ['one', 'two'], mermaid: diagram } }] }, { text: 'Planned.' }],
      guests: refusingGuests(),
      eagerGuest: false
    })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo)
    await page.emulateMedia({ colorScheme: 'light' })
    await page.getByTestId('mode-select').selectOption('plan')
    await sendMessage(page, 'Plan it.')
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    await page.getByTestId('tab-plan').click()
    await page.getByTestId('plan-diagram').locator('svg').waitFor({ timeout: 15_000 })

    const colours = async (): Promise<{ label: string; node: string; page: string }> =>
      page.evaluate(() => {
        const svg = document.querySelector('[data-testid="plan-diagram"] svg')
        const label = [...(svg?.querySelectorAll('.nodeLabel, .node text') ?? [])].find((e) => e.textContent?.includes('Read the code'))
        const shape = svg?.querySelector('.node rect, .node polygon, .node path')
        const style = (e: Element | null | undefined, p: 'color' | 'fill'): string => (e ? getComputedStyle(e)[p] : '')
        const labelColour = label && label.closest('foreignObject') ? style(label, 'color') : style(label, 'fill')
        return { label: labelColour, node: style(shape, 'fill'), page: getComputedStyle(document.documentElement).backgroundColor }
      })
    await expect.poll(async () => contrast((await colours()).label, (await colours()).node), { timeout: 10_000 }).toBeGreaterThanOrEqual(4.5)
    const light = await colours()
    expect(contrast(light.label, light.page)).toBeGreaterThanOrEqual(4.5)
    await saveScreenshot(page, 'light-plan.png')

    // Settings: "light" holds under a dark system preference, across a reload; "dark" and "system" too
    const theme = (): Promise<string | undefined> => page.evaluate(() => document.documentElement.dataset.theme)
    await page.emulateMedia({ colorScheme: 'dark' })
    await expect.poll(theme).toBe('dark')
    await pickTheme(page, 'light')
    expect(await theme()).toBe('light')
    await page.reload()
    await page.getByTestId('app').waitFor()
    expect(await theme()).toBe('light')
    await page.emulateMedia({ colorScheme: 'light' })
    await pickTheme(page, 'dark')
    expect(await theme()).toBe('dark')
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim())).toBe('#14161a')
    await pickTheme(page, 'system')
    expect(await theme()).toBe('light')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 120_000)

  it.skipIf(skipWithoutDocker())("shows the Changes tab's diff editor in the light theme", async () => {
    const repo = await makeTestRepo({ 'greet.ts': 'export const greet = (n: string): string => `Hello, ${n}`\n' })
    const app = await chromium.startApp({
      guests: testGuests({ checkpointsDir: stores }),
      script: [{ toolCalls: [{ name: 'edit_file', args: { path: 'greet.ts', old_string: 'Hello', new_string: 'Bonjour' } }] }, { text: 'Done.' }]
    })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo)
    await page.emulateMedia({ colorScheme: 'light' })
    await sendMessage(page, 'Translate')
    await page.getByTestId('turn-end').waitFor({ timeout: 120_000 })
    await page.getByTestId('turn-changes').click()
    await page.locator('[data-testid="change-file"][data-path="greet.ts"]').click()
    await page.getByTestId('change-diff').locator('.monaco-diff-editor').waitFor({ timeout: 30_000 })
    const background = (): Promise<string> =>
      page.locator('.monaco-diff-editor .editor.modified .monaco-editor-background').first().evaluate((el) => getComputedStyle(el).backgroundColor)
    await expect.poll(async () => contrast(await background(), 'rgb(255, 255, 255)'), { timeout: 10_000 }).toBeLessThan(1.2)
    await saveScreenshot(page, 'light-diff.png')
    expect(pageErrors).toEqual([])
    await page.close()
  }, 180_000)
})
