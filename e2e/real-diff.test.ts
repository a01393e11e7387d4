/**
 * Issue 23 item 5 through the web host in Chromium with a real Docker guest and the scripted model:
 * the timeline's edit row shows the file's real change — the whole line as it was and is now, at
 * the file's line 5 — and a write_file over an existing file gets a diff row showing only the line
 * that changed (before, a write had no diff and an edit showed the model's strings from line 1).
 */
import type { Locator } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { openPage, useWebApp } from './support/fixtures'
import { sendMessage } from './support/web-app'

const MS_JS = "'use strict'\n\n// time units\n\nvar s = 1000; // one second\nvar m = s * 60;\nvar h = m * 60;\n\nmodule.exports = { s, m, h };\n"

/** The changed lines of a diff: [kind, line number, text]. */
async function changed(diff: Locator): Promise<Array<[string, string, string]>> {
  return diff.locator('[data-kind="del"], [data-kind="add"]').evaluateAll((rows) =>
    rows.map((r) => [r.getAttribute('data-kind') ?? '', r.getAttribute('data-kind') === 'del' ? (r.getAttribute('data-old-line') ?? '') : (r.getAttribute('data-new-line') ?? ''), r.textContent ?? ''] as [string, string, string])
  )
}

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: edit rows show the real diff', () => {
  const web = useWebApp({
    files: { 'index.js': MS_JS, 'notes.txt': 'one\ntwo\nthree\nfour\n' },
    script: [
      { toolCalls: [{ name: 'edit_file', args: { path: 'index.js', old_string: 'var s = 1000;', new_string: 'var s = 2000;' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'one\ntwo\nTHREE\nfour\n' } }] },
      { text: 'All changed.' }
    ]
  })

  it('numbers the edit with the file\'s lines and shows a rewrite as its changed line', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await sendMessage(page, 'change it')
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    const edit = page.locator('[data-testid="tool-row"][data-tool-name="edit_file"]').getByTestId('tool-diff')
    expect(await changed(edit)).toEqual([
      ['del', '5', '- var s = 1000; // one second'],
      ['add', '5', '+ var s = 2000; // one second']
    ])
    const write = page.locator('[data-testid="tool-row"][data-tool-name="write_file"]').getByTestId('tool-diff')
    expect(await changed(write)).toEqual([
      ['del', '3', '- three'],
      ['add', '3', '+ THREE']
    ])
    expect(pageErrors).toEqual([])
    await page.close()
  }, 180_000)
})
