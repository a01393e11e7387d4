/**
 * The desk end to end in Chromium through the web host, with the real session service, a real
 * Docker guest and the scripted model server: a stored session opened from the sidebar and
 * continued (the model gets the earlier turn), renamed and another deleted; the workspace tree
 * (.gitignore toggle) and a file's CURRENT content after an edit at the right line numbers, a deep
 * read_file page numbered from its real line, a binary notice, and the open file refreshing when
 * the agent changes it; a folder dropped on the window (simulated: a file:// URI) with spaces and
 * non-ASCII characters in its path; the layout at 1024×700 and 1440×900, remembered across a
 * reload; and the page opened without its token or with a stale one.
 * Screenshots: test-results/desk-*.png.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import type { ScriptStep } from '../test/support/scripted-model-server'
import { saveScreenshot } from './support/browser'
import { newPage, openPage, useBrowser, type PageOptions } from './support/fixtures'
import { allowOnce, openRepo, sendMessage, type WebApp } from './support/web-app'

const APP_TS = Array.from({ length: 10 }, (_, i) => `// line ${i + 1}`).join('\n') + '\n'
const BIG_TXT = Array.from({ length: 6000 }, (_, i) => `row ${i + 1}`).join('\n') + '\n'

/** Line number → text of the lines Monaco shows in the Files tab (matched by their vertical position). */
async function shownLines(page: Page): Promise<Map<number, string>> {
  const entries = await page.evaluate(() => {
    const view = document.querySelector('[data-testid="file-view"] .monaco-editor')
    const out: [number, string][] = []
    if (!view) return out
    const top = (el: Element): number => parseFloat((el as HTMLElement).style.top || '0')
    const nums = [...view.querySelectorAll('.margin-view-overlays > div')].map((el) => [top(el), el.textContent?.trim() ?? ''] as const)
    const lines = [...view.querySelectorAll('.view-lines > .view-line')].map((el) => [top(el), (el.textContent ?? '').replace(/\u00a0/g, ' ')] as const)
    for (const [t, n] of nums) {
      const line = lines.find(([lt]) => lt === t)
      if (line && n) out.push([Number(n), line[1]])
    }
    return out
  })
  return new Map(entries)
}

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('the desk in the browser', () => {
  const chromium = useBrowser({ guestImage: true })
  const WIDE: PageOptions = { viewport: { width: 1440, height: 900 } }
  const NARROW: PageOptions = { viewport: { width: 1024, height: 700 } }
  const start = (script: ScriptStep[]): Promise<WebApp> => chromium.startApp({ script })

  it('opens a stored session from the sidebar and continues it; renames one and deletes another', async () => {
    const repo = await makeTestRepo({ 'README.md': '# Stored\n' })
    const other = await makeTestRepo({ 'README.md': '# Other\n' })
    const { service, host, model } = await start([{ text: 'First answer.' }, { text: 'Other answer.' }, { text: 'Second answer.' }])
    // two sessions made earlier (as by another window or the CLI), then closed
    for (const [path, text] of [[repo, 'First question about the stored repo'], [other, 'A session to delete']] as const) {
      const s = await service.openSession({ repo: path })
      await service.submit({ sessionId: s.id, op: { type: 'user_message', text } })
      await service.idle(s.id)
      await service.closeSession({ sessionId: s.id })
    }
    const { page, pageErrors: errors } = await openPage(chromium.browser, { host }, undefined, WIDE)
    const items = page.getByTestId('stored-session')
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(2)
    expect(await page.getByTestId('session-title').allTextContents()).toEqual(['A session to delete', 'First question about the stored repo'])
    // search
    await page.getByTestId('session-search').fill('stored repo')
    await expect.poll(() => items.count()).toBe(1)
    await saveScreenshot(page, 'desk-sessions-search.png')
    await page.getByTestId('session-search').fill('')

    // open the stored one: its history shows, then a new message continues it
    const stored = page.locator('[data-testid="stored-session"]', { hasText: 'First question' })
    await stored.getByTestId('session-open').click()
    await expect.poll(() => page.getByTestId('session-info').textContent(), { timeout: 15_000 }).toBe(repo)
    await expect.poll(() => page.getByTestId('user-message').allTextContents()).toEqual(['First question about the stored repo'])
    expect(await page.getByTestId('assistant-text').allTextContents()).toContain('First answer.')
    expect(await page.getByTestId('model-badge').textContent()).toContain('scripted-model')
    await sendMessage(page, 'And a follow-up')
    await expect.poll(() => page.getByTestId('assistant-text').allTextContents(), { timeout: 60_000 }).toContain('Second answer.')
    const last = JSON.stringify(model.requests.at(-1)?.body)
    expect(last).toContain('First question about the stored repo')
    expect(last).toContain('First answer.')
    expect(last).toContain('And a follow-up')

    // rename the open one
    const current = page.locator('[data-testid="stored-session"][aria-current="true"]')
    await current.getByTestId('session-rename').click()
    await page.getByTestId('session-rename-input').fill('Stored – renamed ✓')
    await page.getByTestId('session-rename-save').click()
    await expect.poll(() => page.getByTestId('session-title').allTextContents()).toContain('Stored – renamed ✓')

    // delete the other one, after confirming
    const doomed = page.locator('[data-testid="stored-session"]', { hasText: 'A session to delete' })
    await doomed.hover()
    await doomed.getByTestId('session-delete').click()
    await saveScreenshot(page, 'desk-sessions-delete-confirm.png')
    await doomed.getByTestId('session-delete-confirm').click()
    await expect.poll(() => items.count()).toBe(1)
    expect((await service.listStoredSessions({})).map((s) => s.repo)).toEqual([repo])
    // an open session cannot be deleted (the service refuses; the sidebar offers close instead)
    const openId = (await service.listSessions({}))[0]?.id ?? ''
    await expect(service.deleteSession({ sessionId: openId })).rejects.toThrow(/open/)
    await saveScreenshot(page, 'desk-sessions.png')
    expect(errors).toEqual([])
    await page.close()
  })

  it('shows the workspace tree and the current content of a file after an edit, at its real line numbers', async () => {
    const repo = await makeTestRepo({
      'src/app.ts': APP_TS,
      'big.txt': BIG_TXT,
      'logo.bin': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
      '.gitignore': 'build/\n',
      'build/out.txt': 'generated\n'
    })
    const { host } = await start([
      {
        toolCalls: [
          { name: 'edit_file', args: { path: 'src/app.ts', old_string: '// line 5\n', new_string: '// line five, edited\n' } },
          { name: 'read_file', args: { path: 'big.txt', offset: 5500, limit: 3 } }
        ]
      },
      { text: 'Edited.' },
      { toolCalls: [{ name: 'bash', args: { command: "sed -i 's|// line 7|// line seven, by bash|' src/app.ts" } }] },
      { text: 'Changed again.' }
    ])
    const { page, pageErrors: errors } = await openPage(chromium.browser, { host }, repo, WIDE)
    await sendMessage(page, 'Edit line 5 and read the end of big.txt')
    await page.getByTestId('turn-end').waitFor({ timeout: 120_000 })

    // the edit row's "view" opens the file as it is now, at the edited line
    await page.locator('[data-testid="tool-row"][data-tool-name="edit_file"]').getByTestId('tool-open-file').click()
    await expect.poll(() => page.getByTestId('file-path').textContent(), { timeout: 15_000 }).toBe('src/app.ts')
    await expect.poll(async () => (await shownLines(page)).get(5), { timeout: 15_000 }).toBe('// line five, edited')
    const lines = await shownLines(page)
    expect(lines.get(4)).toBe('// line 4')
    expect(lines.get(10)).toBe('// line 10')
    expect(await page.getByTestId('file-range').textContent()).toContain('lines 1–10 of 10')
    await saveScreenshot(page, 'desk-file-edited.png')

    // the tree: .gitignored build/ hidden until the toggle
    const tree = page.getByTestId('files-tree')
    await tree.locator('[data-testid="tree-dir"][data-path="src"]').waitFor({ timeout: 15_000 })
    expect(await tree.locator('[data-testid="tree-dir"][data-path="build"]').count()).toBe(0)
    expect(await tree.locator('[data-testid="tree-file"][data-path=".gitignore"]').count()).toBe(1)
    await page.getByTestId('files-ignored').check()
    await tree.locator('[data-testid="tree-dir"][data-path="build"]').waitFor({ timeout: 15_000 })
    await tree.locator('[data-testid="tree-dir"][data-path="build"]').click()
    await tree.locator('[data-testid="tree-file"][data-path="build/out.txt"]').waitFor()

    // a binary file gets a notice, not an editor
    await tree.locator('[data-testid="tree-file"][data-path="logo.bin"]').click()
    await expect.poll(() => page.getByTestId('file-notice').textContent(), { timeout: 15_000 }).toContain('Binary file')

    // a deep read_file page: numbered from its real line, revealed at the lines the call read
    await page.locator('[data-testid="tool-row"][data-tool-name="read_file"]').getByTestId('tool-open-file').click()
    await expect.poll(() => page.getByTestId('file-path').textContent(), { timeout: 15_000 }).toBe('big.txt')
    await expect.poll(async () => (await shownLines(page)).get(5500), { timeout: 15_000 }).toBe('row 5500')
    expect(Number(await page.getByTestId('file-view').getAttribute('data-start-line'))).toBeGreaterThan(1)
    await page.getByTestId('file-pager').waitFor()
    await saveScreenshot(page, 'desk-file-deep-page.png')

    // the open file refreshes when the agent changes it
    await tree.locator('[data-testid="tree-dir"][data-path="src"]').click()
    await tree.locator('[data-testid="tree-file"][data-path="src/app.ts"]').click()
    await expect.poll(async () => (await shownLines(page)).get(7), { timeout: 15_000 }).toBe('// line 7')
    await sendMessage(page, 'Change line 7 with sed')
    await allowOnce(page)
    await expect.poll(() => page.getByTestId('turn-end').count(), { timeout: 120_000 }).toBe(2)
    await expect.poll(async () => (await shownLines(page)).get(7), { timeout: 15_000 }).toBe('// line seven, by bash')
    expect((await shownLines(page)).get(5)).toBe('// line five, edited')
    await saveScreenshot(page, 'desk-file-refreshed.png')
    expect(errors).toEqual([])
    await page.close()
  }, 300_000)

  it('fills the path field from a folder dropped on the window (spaces and non-ASCII) and opens it', async () => {
    const base = await makeTestRepo({ 'my repo ä/README.md': '# Spaced\n' }, { git: false })
    const repo = join(base, 'my repo ä')
    const { host } = await start([{ text: 'ok' }])
    const { page, pageErrors: errors } = await openPage(chromium.browser, { host }, undefined, WIDE)
    await page.evaluate((uri) => {
      const dt = new DataTransfer()
      dt.setData('text/uri-list', uri)
      const target = document.querySelector('[data-testid="timeline"]') ?? document.querySelector('[data-testid="app"]')
      target?.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }))
      target?.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }))
    }, `file://${encodeURI(repo)}`)
    await expect.poll(() => page.getByTestId('repo-input').inputValue()).toBe(repo)
    expect(await page.getByTestId('repo-note').textContent()).toContain('Dropped folder')
    await saveScreenshot(page, 'desk-drop.png')
    await page.getByTestId('repo-open').click()
    await expect.poll(() => page.getByTestId('session-info').textContent(), { timeout: 15_000 }).toBe(repo)
    // the field completes with folder names listed on the host
    await page.getByTestId('repo-input').fill(`${base}/`)
    await expect.poll(() => page.locator('[data-testid="repo-options"] option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value))).toEqual([repo])
    await expect.poll(() => page.getByTestId('session-title').count(), { timeout: 10_000 }).toBe(1)
    expect(errors).toEqual([])
    await page.close()
  })

  it('is usable at 1024×700 and 1440×900 and remembers the layout', async () => {
    const repo = await makeTestRepo({ 'README.md': '# Layout\n' })
    const { host } = await start([{ text: 'ok' }])
    const { page, pageErrors: errors } = await openPage(chromium.browser, { host }, repo, NARROW)
    for (const id of ['repo-input', 'repo-open', 'session-search', 'composer-input', 'tab-files', 'tab-changes', 'connection']) {
      const box = await page.getByTestId(id).boundingBox()
      expect(box, id).not.toBeNull()
      expect((box?.x ?? 0) + (box?.width ?? 0), id).toBeLessThanOrEqual(1024)
      expect((box?.y ?? 0) + (box?.height ?? 0), id).toBeLessThanOrEqual(700)
    }
    await saveScreenshot(page, 'desk-1024x700.png')
    // collapse the right panel, widen the sidebar with the keyboard (16 px a press); a reload keeps both
    const sidebar = page.getByTestId('sessions-sidebar')
    await page.getByTestId('toggle-right').click()
    expect(await page.getByTestId('tab-files').isVisible()).toBe(false)
    const before = (await sidebar.boundingBox())?.width ?? 0
    await page.getByTestId('split-left').focus()
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight')
    await expect.poll(async () => (await sidebar.boundingBox())?.width ?? 0).toBe(before + 48)
    await saveScreenshot(page, 'desk-1024x700-collapsed.png')
    await page.reload()
    await page.getByTestId('sessions-sidebar').waitFor()
    expect((await page.getByTestId('sessions-sidebar').boundingBox())?.width).toBe(before + 48)
    expect(await page.getByTestId('tab-files').isVisible()).toBe(false)
    await page.getByTestId('toggle-right').click()
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.getByTestId('tab-files').click()
    await page.getByTestId('files-tree').waitFor({ timeout: 15_000 })
    await saveScreenshot(page, 'desk-1440x900.png')
    // the light theme follows the system preference
    await page.emulateMedia({ colorScheme: 'light' })
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim())).toBe('#ffffff')
    await saveScreenshot(page, 'desk-1440x900-light.png')
    expect(errors).toEqual([])
    await page.close()
  })

  it('refuses invalid settings beside the field, tests the connection, and opens new sessions with the saved model', async () => {
    const repo = await makeTestRepo({ 'README.md': '# Settings\n' })
    const { host, model, service } = await start([{ text: 'Answered by the new model.' }])
    const { page, pageErrors: errors } = await openPage(chromium.browser, { host }, undefined, NARROW)
    await page.getByTestId('open-settings').click()
    const dialog = page.getByTestId('settings-dialog')
    await expect.poll(() => dialog.getByTestId('settings-inforce').textContent()).toContain('openai-compatible · scripted-model')
    // the browser host: keys only from the server's environment
    expect(await dialog.getByTestId('settings-key-env').count()).toBe(1)
    expect(await dialog.getByTestId('settings-apiKey').count()).toBe(0)

    await dialog.getByTestId('settings-baseUrl').fill('ftp://nowhere')
    await dialog.getByTestId('settings-warmPool').fill('99')
    await dialog.getByTestId('settings-streamIdleTimeoutS').fill('2')
    await dialog.getByTestId('settings-guestImage').fill('Bad Image')
    await dialog.getByTestId('settings-save').click()
    expect(await dialog.getByTestId('settings-error-baseUrl').textContent()).toContain('http:// or https://')
    expect(await dialog.getByTestId('settings-error-warmPool').textContent()).toBe('must be 0 to 8')
    expect(await dialog.getByTestId('settings-error-streamIdleTimeoutS').textContent()).toContain('10 to 3600')
    expect(await dialog.getByTestId('settings-error-guestImage').textContent()).toContain('Docker image reference')
    await saveScreenshot(page, 'desk-settings-invalid.png')
    // the service refuses them too, naming the field
    await expect(service.saveSettings({ settings: { warmPool: 99 } })).rejects.toThrow(/settings\.warmPool/)

    await dialog.getByTestId('settings-baseUrl').fill(model.baseUrl)
    await dialog.getByTestId('settings-warmPool').fill('0')
    await dialog.getByTestId('settings-streamIdleTimeoutS').fill('60')
    await dialog.getByTestId('settings-guestImage').fill('')
    await dialog.getByTestId('settings-model').fill('renamed-model')
    await dialog.getByTestId('settings-test').click()
    // the scripted server answers but lists no models (404): reachable, reported as such
    await expect.poll(() => dialog.getByTestId('settings-status').textContent(), { timeout: 15_000 }).toContain('HTTP 404')
    expect(model.requests.some((r) => r.method === 'GET' && r.path.endsWith('/models'))).toBe(true)
    await dialog.getByTestId('settings-save').click()
    await expect.poll(() => dialog.getByTestId('settings-status').textContent()).toContain('New sessions use openai-compatible · renamed-model')
    await saveScreenshot(page, 'desk-settings-saved.png')
    await page.getByRole('button', { name: 'Close', exact: true }).click()

    await openRepo(page, repo)
    await expect.poll(() => page.getByTestId('model-badge').textContent(), { timeout: 10_000 }).toContain('renamed-model')
    await sendMessage(page, 'Which model?')
    await expect.poll(() => page.getByTestId('assistant-text').allTextContents(), { timeout: 60_000 }).toContain('Answered by the new model.')
    const chat = model.requests.filter((r) => r.method === 'POST')
    expect((chat.at(-1)?.body as { model?: string }).model).toBe('renamed-model')
    expect(errors).toEqual([])
    await page.close()
  })

  it('explains a missing or stale token instead of showing a dead UI', async () => {
    const { host } = await start([])
    const { page, pageErrors: errors } = await newPage(chromium.browser, NARROW)
    await page.goto(host.origin + '/')
    await page.getByTestId('token-page').waitFor({ timeout: 10_000 })
    expect(await page.getByTestId('token-page').getAttribute('data-reason')).toBe('missing')
    expect(await page.getByTestId('token-page').textContent()).toContain('cortex serve')
    await saveScreenshot(page, 'desk-no-token.png')
    await page.goto(`${host.origin}/?token=stale-token-from-an-earlier-run`)
    await page.locator('[data-testid="token-page"][data-reason="stale"]').waitFor({ timeout: 15_000 })
    expect(await page.getByTestId('token-explanation').textContent()).toContain('restarted')
    await saveScreenshot(page, 'desk-stale-token.png')
    expect(errors).toEqual([])
    await page.close()
  })
})
