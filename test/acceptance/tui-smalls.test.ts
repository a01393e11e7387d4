// Issue 23 item 11's TUI smalls through the interactive CLI in a pseudo-terminal, a real guest and
// the scripted model: the first screen names the repository, mode, sandbox and approval policy (it
// was blank); inline Markdown inside a list item is rendered (it printed `**` and backquotes); at
// 40×12 the approval card leaves the composer and the status line on screen; a deny reason pasted
// with its Enter in one read denies with that reason (the Enter was dropped). Screen dumps go to
// test-results/tui/.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { sentToolResults, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'

describe.skipIf(skipWithoutDocker())('cortex (interactive): first screen, list Markdown, a small approval card, a pasted reason', () => {
  let server: ScriptedModelServer | undefined
  let screen: PtyScreen | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-tui-smalls-home-'))
  afterAll(async () => {
    await screen?.kill()
    await screen?.exited
    await server?.close()
    rmSync(home, { recursive: true, force: true, maxRetries: 5 })
  })

  it('shows where it works, renders list Markdown, keeps the composer at 40×12 and takes a pasted reason', async () => {
    server = await startScriptedModelServer([
      { text: 'Here:\n\n- item with **bold** and `code`\n- plain item' },
      { toolCalls: [{ name: 'bash', args: { command: 'echo a command long enough to wrap over several lines of a forty-column card' } }] },
      { text: 'Understood.' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    screen = startPtyCli(['--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted'], { cols: 120, rows: 40, env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } })
    const s = screen
    await s.waitFor((l) => l.some((x) => x.startsWith('╭─ Agent')), 60_000)
    // the first screen says where and how the session works
    await s.waitFor(`session on ${repo} · mode agent · sandbox workspace-write · ask commands`, 10_000)

    s.write('list it')
    await s.waitFor((l) => l.some((x) => x.includes('list it')), 10_000) // typed, then Enter as its own key
    s.write('\r')
    await s.waitFor('plain item', 60_000)
    s.dump('list-markdown')
    expect(s.text()).toContain('item with bold and code')
    expect(s.text()).not.toContain('**bold**')

    s.resize(40, 12)
    await s.waitFor((l) => l.filter((x) => x.startsWith('╭─ Agent')).length === 1 && l.some((x) => /^╭─ Agent ─+╮$/.test(x)), 10_000)
    s.write('run it')
    await s.waitFor((l) => l.some((x) => x.includes('run it')), 10_000)
    s.write('\r')
    await s.waitFor('wants to run', 60_000)
    s.dump('approval-40x12')
    const lines = s.lines()
    const card = lines.findIndex((l) => l.includes('wants to run'))
    const composer = lines.findIndex((l) => /^╭─ Agent ─+╮$/.test(l))
    const bottom = lines.findIndex((l, i) => i > composer && /^╰─+╯$/.test(l))
    expect(composer, s.text()).toBeGreaterThan(card)
    expect(bottom, s.text()).toBeGreaterThan(composer)
    expect(lines[bottom + 1] ?? '', s.text()).toMatch(/working · /) // the status line under the composer

    // a reason pasted with its Enter in one read
    s.write('n')
    await s.waitFor('Deny, reason:', 10_000)
    s.write('not now, use the file\r')
    await s.waitFor('Understood.', 60_000)
    expect(sentToolResults(server.requests[2]!)[0]?.output).toContain('not now, use the file')
  }, 180_000)
})
