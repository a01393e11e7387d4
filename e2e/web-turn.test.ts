/**
 * End to end through the web host: a real session service (scripted OpenAI-compatible model server
 * over HTTP, real Docker guest) served with startWebHost, driven from Debian's Chromium. The user
 * opens a temp repository, sends a prompt in Agent mode, and sees the streamed text, one row per
 * tool call (glob, read_file, bash) with its arguments and result, and the bash output in the
 * terminal; a Plan-mode turn whose plan diagram renders with mermaid; Esc stopping a running turn;
 * Markdown rendered safely (raw HTML inert, javascript: links dead), an edit_file diff, a long result
 * with "show more", the layout at 900×700; and the browser's WebSocket refused with a wrong token or
 * from a foreign origin.
 * Screenshots: test-results/web-turn.png, web-turn-reloaded.png, web-plan.png, web-markdown.png,
 * web-narrow.png (900×700).
 */
import { describe, expect, it } from 'vitest'
import type { WebHost } from '../src/web'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import type { ScriptStep } from '../test/support/scripted-model-server'
import { saveScreenshot } from './support/browser'
import { openPage, useBrowser, type OpenedPage } from './support/fixtures'
import { allowOnce, openRepo, sendMessage, type WebApp } from './support/web-app'

const README = '# Demo\n\nHello from the Cortex e2e repository.\n'
const MARKDOWN_TEXT = [
  'Here is **bold** text and `inline code`:',
  '',
  '- first item',
  '- second item',
  '',
  'Raw HTML <img src=x onerror="window.__pwned=1"> stays text; [a bad link](javascript:window.__pwned=2) is dead;',
  '[the docs](https://example.com/docs) open outside.'
].join('\n')

/** The model's script for the Agent-mode turn (two responses: tools, then the answer). */
const AGENT_TURN: ScriptStep[] = [
  {
    text: 'Let me look at the repository.',
    toolCalls: [
      { name: 'glob', args: { pattern: '**/*.md' } },
      { name: 'read_file', args: { path: 'README.md' } },
      { name: 'bash', args: { command: 'echo guest-says-$((6*7))' } }
    ],
    chunkDelayMs: 5
  },
  { text: 'The README greets you: Hello from the Cortex e2e repository.', chunkDelayMs: 5 }
]

/** Plan mode: the plan tool publishes a plan whose mermaid diagram the plan view renders. */
const PLAN_TURN: ScriptStep[] = [
  {
    toolCalls: [
      {
        name: 'plan',
        args: {
          title: 'Greet in French',
          summary: 'Translate the README greeting.',
          steps: ['Read README.md', 'Write the French greeting'],
          mermaid: 'flowchart TD\n  A[Read README] --> B[Translate]\n  B --> C[Write README.fr.md]'
        }
      }
    ]
  },
  { text: 'The plan is ready for review.' }
]

/** Stop: text streams, then the response hangs until the client aborts (Esc). */
const HANGING_TURN: ScriptStep[] = [{ text: 'Starting a long job', hangAfterText: true }]

/** Markdown, hostile HTML and links in model text; an edit_file diff and a long bash result. */
const MARKDOWN_TURN: ScriptStep[] = [
  {
    text: MARKDOWN_TEXT,
    toolCalls: [
      { name: 'edit_file', args: { path: 'src/index.ts', old_string: 'export {}', new_string: 'export const answer = 42' } },
      { name: 'bash', args: { command: 'seq 1 40' } }
    ],
    chunkDelayMs: 2
  },
  { text: 'Done: the **answer** is set.' }
]

/** What one test runs against: its own repository, model script, session service and web host. */
type Stack = WebApp & { repo: string }

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: a Code turn in the browser', () => {
  const chromium = useBrowser({ guestImage: true })

  /** Start this test's stack (closed after it): a fresh repository, a model that answers `script`, a service and a host. */
  async function startStack(script: ScriptStep[]): Promise<Stack> {
    const repo = await makeTestRepo({ 'README.md': README, 'docs/guide.md': '# Guide\n', 'src/index.ts': 'export {}\n' })
    return { ...(await chromium.startApp({ script })), repo }
  }

  /** Open the app (and `repo`, when given) in a new page; `pageErrors` collects that page's script errors and console errors. */
  const openApp = (host: WebHost, repo?: string): Promise<OpenedPage> => openPage(chromium.browser, { host }, repo, { consoleErrors: true })

  it('streams text and shows glob, read_file and bash rows with results', async () => {
    const { repo, model, host } = await startStack(AGENT_TURN)
    const { page, pageErrors } = await openApp(host)
    // No session yet: the composer and Send are disabled, the terminal pane says why it is empty.
    expect(await page.getByTestId('composer-input').isDisabled()).toBe(true)
    expect(await page.getByTestId('send-button').isDisabled()).toBe(true)
    expect(await page.getByTestId('terminal-empty').isVisible()).toBe(true)
    await openRepo(page, repo)
    // The path shows once: the field is cleared for the next repository.
    expect(await page.getByTestId('repo-input').inputValue()).toBe('')
    await page.getByTestId('mode-select').selectOption('agent')
    await sendMessage(page, 'What does the README say?')
    // the app asks before each command by default: the card shows the exact command
    expect(await allowOnce(page)).toBe('echo guest-says-$((6*7))')

    await page.getByTestId('turn-end').waitFor({ timeout: 120_000 })
    expect(await page.getByTestId('turn-end').getAttribute('data-reason')).toBe('completed')
    expect(await page.getByTestId('user-message').textContent()).toBe('What does the README say?')

    const texts = await page.getByTestId('assistant-text').allTextContents()
    expect(texts).toEqual(['Let me look at the repository.', 'The README greets you: Hello from the Cortex e2e repository.'])

    const rows = page.getByTestId('tool-row')
    expect(await rows.count()).toBe(3)
    const glob = page.locator('[data-testid="tool-row"][data-tool-name="glob"]')
    const read = page.locator('[data-testid="tool-row"][data-tool-name="read_file"]')
    const bash = page.locator('[data-testid="tool-row"][data-tool-name="bash"]')
    for (const row of [glob, read, bash]) expect(await row.getAttribute('data-status')).toBe('ok')
    expect(await glob.getByTestId('tool-args').textContent()).toBe('pattern: **/*.md')
    expect(await bash.getByTestId('tool-args').textContent()).toBe('$ echo guest-says-$((6*7))')
    const globResult = await glob.getByTestId('tool-result').textContent()
    expect(globResult).toContain('README.md')
    expect(globResult).toContain('docs/guide.md')
    expect(await read.getByTestId('tool-args').textContent()).toContain('README.md')
    expect(await read.getByTestId('tool-result').textContent()).toContain('Hello from the Cortex e2e repository.')
    expect(await bash.getByTestId('tool-result').textContent()).toContain('guest-says-42')

    // The bash output streamed into the xterm pane.
    await page.getByTestId('tab-terminal').click()
    await expect.poll(() => page.getByTestId('terminal').innerText(), { timeout: 10_000 }).toContain('guest-says-42')
    expect(await page.getByTestId('terminal-empty').count()).toBe(0)
    expect(await page.getByTestId('guest-status').getAttribute('data-state')).toBe('ready')

    // The model saw the tool results: a second request carried them.
    expect(model.requests.filter((r) => r.stepIndex !== undefined)).toHaveLength(2)
    expect(JSON.stringify(model.requests[1]?.body)).toContain('Hello from the Cortex e2e repository.')

    await saveScreenshot(page, 'web-turn.png')

    // A reload shows the session again with its history (rows keep their height; nothing is squashed).
    await page.reload()
    await expect.poll(() => page.locator('[data-testid="tool-row"]').count(), { timeout: 10_000 }).toBe(3)
    expect(await page.locator('[data-testid="tool-row"][data-tool-name="read_file"]').getByTestId('tool-result').textContent()).toContain(
      'Hello from the Cortex e2e repository.'
    )
    for (const row of await page.locator('[data-testid="tool-row"]').all()) {
      const box = await row.evaluate((el) => ({ client: el.clientHeight, scroll: el.scrollHeight }))
      expect(box.client).toBeGreaterThanOrEqual(box.scroll)
    }
    await saveScreenshot(page, 'web-turn-reloaded.png')
    expect(pageErrors).toEqual([])
    await page.close()
  })

  it('renders the plan from a Plan-mode turn with its mermaid diagram', async () => {
    const { repo, model, host } = await startStack(PLAN_TURN)
    const { page, pageErrors } = await openApp(host, repo)
    await page.getByTestId('mode-select').selectOption('plan')
    await page.getByTestId('mode-row').waitFor()
    await page.getByTestId('composer-input').fill('Plan a French greeting.')
    await page.getByTestId('composer-input').press('Enter')
    await page.getByTestId('turn-end').waitFor({ timeout: 120_000 })
    expect(await page.getByTestId('turn-end').getAttribute('data-reason')).toBe('completed')
    expect(await page.locator('[data-testid="tool-row"][data-tool-name="plan"]').getAttribute('data-status')).toBe('ok')

    // The model was offered the Plan-mode tools only.
    const body = model.requests.at(-2)?.body as { tools?: Array<{ function?: { name?: string } }> }
    expect((body.tools ?? []).map((t) => t.function?.name).sort()).toEqual(['glob', 'grep', 'plan', 'read_file', 'task'])

    await page.getByTestId('tab-plan').click()
    expect(await page.getByTestId('plan-title').textContent()).toBe('Greet in French')
    const diagram = page.getByTestId('plan-diagram').locator('svg')
    await diagram.waitFor({ timeout: 15_000 })
    expect(await page.getByTestId('plan-diagram').innerText()).toContain('Translate')
    await saveScreenshot(page, 'web-plan.png')
    expect(pageErrors).toEqual([])
    await page.close()
  })

  it('stops a running turn with Esc', async () => {
    const { repo, model, host } = await startStack(HANGING_TURN)
    const { page, pageErrors } = await openApp(host, repo)
    await sendMessage(page, 'Run the long job.')
    await expect.poll(() => page.getByTestId('assistant-text').allTextContents(), { timeout: 60_000 }).toEqual(['Starting a long job'])
    await page.getByTestId('stop-button').waitFor()
    await page.keyboard.press('Escape')
    await page.getByTestId('turn-end').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('turn-end').getAttribute('data-reason')).toBe('stopped')
    await expect.poll(() => model.requests.at(-1)?.closedByClient).toBe(true)
    await page.getByTestId('send-button').waitFor()
    expect(pageErrors).toEqual([])
    await page.close()
  })

  it('renders Markdown safely, an edit_file diff, a foldable long result, and fits 900 px', async () => {
    const { repo, host } = await startStack(MARKDOWN_TURN)
    const { page, pageErrors } = await openApp(host, repo)
    await sendMessage(page, 'Show me some Markdown and edit a file.')
    expect(await allowOnce(page)).toBe('seq 1 40')
    await page.getByTestId('turn-end').waitFor({ timeout: 120_000 })
    expect(await page.getByTestId('turn-end').getAttribute('data-reason')).toBe('completed')

    // Markdown: **bold** is <strong>, lists and code render; the raw <img> is text, nothing ran.
    const first = page.getByTestId('assistant-text').first()
    expect(await first.locator('strong').first().textContent()).toBe('bold')
    expect(await first.locator('code').first().textContent()).toBe('inline code')
    expect(await first.locator('li').allTextContents()).toEqual(['first item', 'second item'])
    expect(await page.getByTestId('timeline').locator('img, script').count()).toBe(0)
    expect(await first.textContent()).toContain('<img src=x onerror="window.__pwned=1">')
    expect(await page.getByTestId('assistant-text').nth(1).locator('strong').textContent()).toBe('answer')
    // The javascript: link has no href; clicking it neither runs code nor navigates.
    const bad = first.getByText('a bad link')
    expect(await bad.getAttribute('href')).toBeNull()
    const url = page.url()
    await bad.click()
    // The https link opens outside the app.
    const docs = first.getByText('the docs')
    expect(await docs.getAttribute('href')).toBe('https://example.com/docs')
    expect(await docs.getAttribute('target')).toBe('_blank')
    expect(await docs.getAttribute('rel')).toBe('noopener noreferrer')
    expect(page.url()).toBe(url)
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined()

    // edit_file shows a colored unified diff of old_string → new_string.
    const edit = page.locator('[data-testid="tool-row"][data-tool-name="edit_file"]')
    expect(await edit.getAttribute('data-status')).toBe('ok')
    expect(await edit.getByTestId('tool-args').textContent()).toBe('path: src/index.ts')
    expect(await edit.locator('[data-kind="del"]').allTextContents()).toEqual(['- export {}'])
    expect(await edit.locator('[data-kind="add"]').allTextContents()).toEqual(['+ export const answer = 42'])

    // A long result is clipped with "show more"; the header's chevron folds the row.
    const bash = page.locator('[data-testid="tool-row"][data-tool-name="bash"]')
    const more = bash.getByTestId('tool-more')
    expect(await more.textContent()).toContain('show more')
    const clipped = await bash.getByTestId('tool-result').evaluate((el) => el.scrollHeight > el.clientHeight)
    expect(clipped).toBe(true)
    await more.click()
    expect(await more.textContent()).toContain('show less')
    expect(await bash.getByTestId('tool-result').evaluate((el) => el.clientHeight)).toBeGreaterThan(300)
    const head = bash.locator('.tool-head')
    expect(await head.getAttribute('aria-expanded')).toBe('true')
    await head.click()
    expect(await head.getAttribute('aria-expanded')).toBe('false')
    expect(await bash.getByTestId('tool-result').count()).toBe(0)
    await head.click()
    await more.click()
    await saveScreenshot(page, 'web-markdown.png')

    // 900×700: the header fits, the badges are whole and inside the window.
    await page.setViewportSize({ width: 900, height: 700 })
    for (const id of ['connection', 'guest-status']) {
      const badge = page.getByTestId(id)
      const fits = await badge.evaluate((el) => {
        const r = el.getBoundingClientRect()
        return el.scrollWidth <= el.clientWidth && r.left >= 0 && r.right <= el.ownerDocument.documentElement.clientWidth
      })
      expect(fits, id).toBe(true)
    }
    expect(await page.getByTestId('connection').textContent()).toBe('connected')
    expect(await page.locator('.header').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
    await saveScreenshot(page, 'web-narrow.png')
    expect(pageErrors).toEqual([])
    await page.close()
  })

  it("refuses the browser's WebSocket with a wrong token, and from a foreign origin", async () => {
    const { host } = await startStack([])
    const { page } = await openApp(host)
    const tryConnect = (url: string): Promise<string> =>
      page.evaluate(
        (u) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(u)
            ws.onopen = () => {
              ws.close()
              resolve('open')
            }
            ws.onclose = () => resolve('closed')
          }),
        url
      )
    expect(await tryConnect(`${host.wsUrl}?token=${host.token}`)).toBe('open')
    expect(await tryConnect(`${host.wsUrl}?token=not-the-token`)).toBe('closed')
    expect(await tryConnect(host.wsUrl)).toBe('closed')
    await page.close()

    // about:blank has an opaque origin: the browser sends `Origin: null`, refused even with the token.
    const blank = await chromium.browser.context.newPage()
    const result = await blank.evaluate(
      (u) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(u)
          ws.onopen = () => resolve('open')
          ws.onclose = () => resolve('closed')
        }),
      `${host.wsUrl}?token=${host.token}`
    )
    expect(result).toBe('closed')
    await blank.close()
  })
})
