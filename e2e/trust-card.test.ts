/**
 * End to end through the web host in Chromium with a real Docker guest (issue 21 item 2): a
 * repository's `.claude/settings.json` hook is off; the trust card above the composer lists exactly
 * what would run (the hook's command and the script it names) with Enable / Keep off; the turn runs
 * without the hook; after Enable the card goes and the next turn's bash call runs the hook in the
 * guest (a hook row in the timeline). Screenshot: test-results/web-trust-card.png.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { skipWithoutChromium, skipWithoutDocker } from '../test/support/requirements'
import { saveScreenshot } from './support/browser'
import { openPage, useWebApp } from './support/fixtures'
import { allowOnce, expectTurnEnds, sendMessage } from './support/web-app'

const HOOK = 'sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh'

describe.skipIf(skipWithoutChromium() || skipWithoutDocker())('web host: the repository trust card', () => {
  const web = useWebApp({
    files: {
      '.claude/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: HOOK }] }] } }),
      '.claude/hooks/mark.sh': 'echo ran >> "$CLAUDE_PROJECT_DIR/.hook-log"\n'
    },
    script: [
      { toolCalls: [{ name: 'bash', args: { command: 'echo one' } }] },
      { text: 'Done.' },
      { toolCalls: [{ name: 'bash', args: { command: 'echo two' } }] },
      { text: 'Done again.' }
    ]
  })

  it('lists what will run, keeps the hook off until Enable, then the hook runs in the guest', async () => {
    const { page, pageErrors } = await openPage(web.browser, web.app, web.repo)
    await sendMessage(page, 'Run something.')
    const card = page.getByTestId('trust-card')
    await card.waitFor({ timeout: 60_000 })
    await allowOnce(page)
    await expectTurnEnds(page, 1)
    const log = join(web.repo, '.hook-log')
    expect(existsSync(log)).toBe(false) // off: the hook did not run
    const detail = (await card.getByTestId('trust-detail').textContent()) ?? ''
    expect(detail).toContain(`PreToolUse (Bash): ${HOOK}`)
    expect(detail).toContain('file the hooks run: .claude/hooks/mark.sh (sha256:')
    expect(await card.getByTestId('trust-item').getAttribute('data-state')).toBe('new')
    expect(await page.getByTestId('notice-row').filter({ hasText: 'stay off until you enable them' }).count()).toBe(1)
    await saveScreenshot(page, 'web-trust-card.png')

    await card.getByTestId('trust-enable').click()
    await card.waitFor({ state: 'detached', timeout: 10_000 })
    expect(readFileSync(join(web.app.dataDir, 'trust.json'), 'utf8')).toContain('"hooks"')

    await sendMessage(page, 'Run it again.')
    await allowOnce(page)
    await expectTurnEnds(page, 2)
    expect(readFileSync(log, 'utf8')).toBe('ran\n')
    const row = page.getByTestId('hook-row').first()
    expect(await row.getAttribute('data-status')).toBe('ok')
    expect(await row.textContent()).toContain('PreToolUse hook · done')
    expect(pageErrors).toEqual([])
  }, 180_000)
})
