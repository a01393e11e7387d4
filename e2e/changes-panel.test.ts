/**
 * End to end through the web host: after an Agent turn that edits one file and creates another
 * (real Docker guest with a checkpoint store, scripted model over HTTP), the turn end says "2 files
 * changed", the Changes panel lists both files, clicking one shows Monaco's diff editor with the
 * old and new lines, and the write_file row's "diff" link opens that file's change. Screenshot:
 * test-results/changes-panel.png.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, testGuests, useBrowser } from './support/fixtures'
import { sendMessage } from './support/web-app'

const SOURCE = 'export function greet(name: string): string {\n  return `Hello, ${name}`\n}\n'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: the Changes panel', () => {
  const chromium = useBrowser({ guestImage: true })
  const stores = mkdtempSync(join(tmpdir(), 'cortex-e2e-checkpoints-'))
  afterAll(() => rmSync(stores, { recursive: true, force: true }))

  it('lists the files a turn changed and shows one in the diff editor', async () => {
    const repo = await makeTestRepo({ 'src/greet.ts': SOURCE })
    const app = await chromium.startApp({
      guests: testGuests({ checkpointsDir: stores }),
      script: [
        {
          toolCalls: [
            { name: 'edit_file', args: { path: 'src/greet.ts', old_string: 'return `Hello, ${name}`', new_string: 'return `Bonjour, ${name}!`' } },
            { name: 'write_file', args: { path: 'NOTES.md', content: '# Notes\n\nGreeting is French now.\n' } }
          ]
        },
        { text: 'Greeting translated.' }
      ]
    })
    const { page, pageErrors: errors } = await openPage(chromium.browser, app, repo)
    await sendMessage(page, 'Translate the greeting')
    await page.getByTestId('turn-end').waitFor({ timeout: 120_000 })

    // the turn separator says how many files changed and opens the turn in the Changes panel
    const link = page.getByTestId('turn-changes')
    await link.waitFor({ timeout: 30_000 })
    expect(await link.textContent()).toBe('2 files changed')
    await link.click()
    await page.getByTestId('changes-panel').waitFor()
    const turn = page.getByTestId('changes-turn')
    expect(await turn.getAttribute('data-turn')).toBe('1')
    const files = turn.getByTestId('change-file')
    expect(await files.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-status')} ${e.getAttribute('data-path')}`))).toEqual([
      'added NOTES.md',
      'modified src/greet.ts'
    ])

    await turn.locator('[data-testid="change-file"][data-path="src/greet.ts"]').click()
    await page.getByTestId('change-diff').waitFor({ timeout: 30_000 })
    // side by side the old text is in the original editor; inline (a narrow panel) it is a deleted-line
    // view zone inside the modified editor: read the editor's own lines apart from that zone
    const modified = page.locator('.monaco-diff-editor .editor.modified .view-lines:not(.line-delete)')
    const original = page.locator('.monaco-diff-editor .editor.original .view-lines, .monaco-diff-editor .view-lines.line-delete')
    await expect.poll(async () => (await modified.textContent())?.replace(/\u00a0/g, ' '), { timeout: 20_000 }).toContain('return `Bonjour, ${name}!`')
    const oldText = (await original.allTextContents()).join('\n').replace(/\u00a0/g, ' ')
    expect(oldText).toContain('return `Hello, ${name}`')
    // the changed line is marked on both sides once the diff is computed (in Monaco's worker)
    const marks = (kind: 'insert' | 'delete') => page.locator(`.monaco-diff-editor .line-${kind}, .monaco-diff-editor .char-${kind}`).count()
    await expect.poll(() => marks('insert'), { timeout: 20_000 }).toBeGreaterThan(0)
    await expect.poll(() => marks('delete'), { timeout: 20_000 }).toBeGreaterThan(0)
    await saveScreenshot(page, 'changes-panel.png')

    // a write_file row's "diff" opens that file's change in the Changes tab
    await page.getByTestId('tab-todos').click()
    await page.locator('[data-testid="tool-row"][data-tool-name="write_file"] [data-testid="tool-open-diff"]').click()
    await expect.poll(() => page.getByTestId('change-path').textContent(), { timeout: 20_000 }).toBe('NOTES.md')
    const notes = page.locator('.monaco-diff-editor .editor.modified .view-lines').last()
    await expect.poll(async () => (await notes.textContent())?.replace(/\u00a0/g, ' '), { timeout: 20_000 }).toContain('Greeting is French now.')
    expect(errors).toEqual([])
  })
})
