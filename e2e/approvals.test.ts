/**
 * Approvals in the browser, through the web host: a real session service (scripted model server
 * over HTTP, real Docker guest) driven from Debian's Chromium. The app asks before each command by
 * default: the card shows the exact command and the header says "waiting for your approval"; Allow
 * once runs it; Always with an edited prefix stores a rule that covers the next command (listed
 * in the Approvals tab, removable there); Deny with a reason sends the reason to the model and runs
 * nothing. An escalation (a write under read-only) names what it needs, offers no Always, and runs.
 * A switch to Plan withdraws a waiting card (ADR 0019): its call never runs, a late answer is refused.
 * Screenshots: test-results/web-approval-waiting.png, web-approval-allowed.png, web-approval-escalation.png,
 * web-approval-rules.png, web-approval-withdrawn.png.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { makeTestRepo } from '../test/support/guest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { sentToolResults, type ScriptStep } from '../test/support/scripted-model-server'
import { saveScreenshot } from './support/browser'
import { openPage, useBrowser } from './support/fixtures'
import { sendMessage, type WebApp } from './support/web-app'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: approvals', () => {
  const chromium = useBrowser({ guestImage: true })
  let app: WebApp | undefined

  /** A fresh repository and stack for this test (closed after it), opened in a new page. */
  async function start(script: ScriptStep[]): Promise<{ page: Page; repo: string; errors: string[] }> {
    const repo = await makeTestRepo({ 'README.md': '# Demo\n' })
    app = await chromium.startApp({ script })
    const { page, pageErrors } = await openPage(chromium.browser, app, repo)
    return { page, repo, errors: pageErrors }
  }

  it('shows the exact command, waits, and runs it on Allow once', async () => {
    const { page, repo, errors } = await start([
      { text: 'I will create the file.', toolCalls: [{ name: 'bash', args: { command: 'echo approved-$((6*7)) > made.txt && cat made.txt' } }] },
      { text: 'Created.' }
    ])
    await sendMessage(page, 'make a file')
    const card = page.locator('[data-testid="approval-card"][data-status="waiting"]')
    await card.waitFor({ timeout: 60_000 })
    expect(await card.getByTestId('approval-call').textContent()).toBe('echo approved-$((6*7)) > made.txt && cat made.txt')
    // a command with shell operators can only be covered by an exact rule: the suggestion is the whole line
    expect(await card.getByTestId('approval-rule').inputValue()).toBe('echo approved-$((6*7)) > made.txt && cat made.txt')
    expect(await page.getByTestId('waiting-approval').textContent()).toBe('waiting for your approval')
    expect(existsSync(join(repo, 'made.txt'))).toBe(false) // nothing ran while it waits
    await saveScreenshot(page, 'web-approval-waiting.png')

    await card.getByTestId('approval-allow-once').click()
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    expect(await page.locator('[data-testid="approval-card"]').getAttribute('data-status')).toBe('allowed')
    expect(await page.getByTestId('waiting-approval').count()).toBe(0)
    const bash = page.locator('[data-testid="tool-row"][data-tool-name="bash"]')
    expect(await bash.getByTestId('tool-result').textContent()).toContain('approved-42')
    expect(existsSync(join(repo, 'made.txt'))).toBe(true)
    await saveScreenshot(page, 'web-approval-allowed.png')
    expect(errors).toEqual([])
  }, 180_000)

  it('a switch to Plan withdraws the waiting card: no answer is offered or taken, and nothing runs', async () => {
    const { page, repo, errors } = await start([
      { toolCalls: [{ name: 'bash', args: { command: 'echo written-in-plan > plan.txt' } }] },
      { text: 'Understood.' }
    ])
    await sendMessage(page, 'make a file')
    const card = page.locator('[data-testid="approval-card"][data-status="waiting"]')
    await card.waitFor({ timeout: 60_000 })
    const requestId = (await card.getAttribute('data-request'))!
    await page.getByTestId('mode-select').selectOption('plan')
    // the card turns into its outcome: withdrawn, with why, and no buttons left to press
    const done = page.locator(`[data-testid="approval-card"][data-request="${requestId}"]`)
    await expect.poll(() => done.getAttribute('data-status'), { timeout: 30_000 }).toBe('withdrawn')
    expect(await done.getByTestId('approval-outcome').textContent()).toBe('bash withdrawn — the user switched to plan mode; the call was not run')
    expect(await page.getByTestId('approval-allow-once').count()).toBe(0)
    expect(await page.getByTestId('waiting-approval').count()).toBe(0)
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    await saveScreenshot(page, 'web-approval-withdrawn.png')
    // an Allow once that was on its way when the card went (a click racing the event) is refused and runs nothing
    const sessionId = (await app!.service.listSessions({}))[0]!.id
    await expect(app!.service.submit({ sessionId, op: { type: 'approval_decision', requestId, decision: 'allow_once' } })).rejects.toThrow(/was withdrawn/)
    expect(existsSync(join(repo, 'plan.txt'))).toBe(false)
    const bash = page.locator('[data-testid="tool-row"][data-tool-name="bash"]')
    expect(await bash.getByTestId('tool-result').textContent()).toContain('the user switched to plan mode while this bash call waited for its approval')
    expect(sentToolResults(app!.model.requests[1]!)[0]?.output).toContain('it was not run')
    expect(errors).toEqual([])
  }, 180_000)

  it('an escalation names what it needs, offers no Always, and runs in a one-off guest', async () => {
    const { page, repo, errors } = await start([
      { toolCalls: [{ name: 'bash', args: { command: 'touch escalated.txt', escalate: 'write', justification: 'the build writes its output' } }] },
      { text: 'Done.' }
    ])
    // a read-only session: writing needs an escalation
    await page.getByTestId('sandbox-select').selectOption('read-only')
    await expect.poll(() => page.getByTestId('sandbox-row').count(), { timeout: 10_000 }).toBe(1)
    await sendMessage(page, 'write a file')
    const card = page.locator('[data-testid="approval-card"][data-status="waiting"]')
    await card.waitFor({ timeout: 60_000 })
    expect(await card.getByTestId('approval-escalation').textContent()).toBe('needs to write to the repository (the session is read-only)')
    expect(await card.textContent()).toContain('the build writes its output')
    expect(await card.getByTestId('approval-always').count()).toBe(0)
    await saveScreenshot(page, 'web-approval-escalation.png')
    await card.getByTestId('approval-allow-once').click()
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    expect(existsSync(join(repo, 'escalated.txt'))).toBe(true)
    expect((await app!.service.listSessions({}))[0]?.sandbox).toBe('read-only')
    expect(errors).toEqual([])
  }, 180_000)

  it('Always with an edited prefix covers the next command; the rule is listed and removable; Deny sends the reason', async () => {
    const { page, repo, errors } = await start([
      { toolCalls: [{ name: 'bash', args: { command: 'git status --short' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'git log --oneline -1' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'touch nope.txt' } }] },
      { text: 'Understood.' }
    ])
    await sendMessage(page, 'look at git, then make a file')
    const first = page.locator('[data-testid="approval-card"][data-status="waiting"]').first()
    await first.waitFor({ timeout: 60_000 })
    expect(await first.getByTestId('approval-rule').inputValue()).toBe('git status *')
    await first.getByTestId('approval-rule').fill('git *')
    await first.getByTestId('approval-always').click()
    // the first card leaves "waiting" once the decision is applied; only then is a waiting card the next one
    await expect.poll(() => page.getByTestId('approval-card').first().getAttribute('data-status'), { timeout: 30_000 }).not.toBe('waiting')
    // `git log` runs without a card (covered by `git *`); `touch` asks
    const third = page.locator('[data-testid="approval-card"][data-status="waiting"]')
    await third.waitFor({ timeout: 60_000 })
    expect(await third.getByTestId('approval-call').textContent()).toBe('touch nope.txt')
    expect(await page.getByTestId('approval-card').count()).toBe(2)
    expect(await page.getByTestId('approval-rule-row').getAttribute('data-outcome')).toBe('allowed')
    await third.getByTestId('approval-deny-reason').fill('keep the tree clean')
    await third.getByTestId('approval-deny').click()
    await page.getByTestId('turn-end').waitFor({ timeout: 60_000 })
    expect(existsSync(join(repo, 'nope.txt'))).toBe(false)
    expect(sentToolResults(app!.model.requests[3]!).at(-1)?.output).toContain('keep the tree clean')
    expect(await page.locator('[data-testid="approval-card"]').last().getByTestId('approval-outcome').textContent()).toContain('keep the tree clean')

    await page.getByTestId('tab-approvals').click()
    const item = page.getByTestId('approval-rule-item')
    await item.waitFor({ timeout: 10_000 })
    expect(await item.textContent()).toContain('git *')
    await saveScreenshot(page, 'web-approval-rules.png')
    await item.getByTestId('approval-rule-remove').click()
    await page.getByTestId('approval-rules-empty').waitFor({ timeout: 10_000 })
    expect(await app!.service.listApprovalRules({ repo })).toEqual([])
    expect(errors).toEqual([])
  }, 180_000)
})
