// Custom slash commands in the interactive CLI (ADR 0036), in a real pseudo-terminal against the
// scripted model server and a real guest: typing `/rev` offers the user's `/review` next to the
// built-in commands (its argument hint and description shown), Tab completes it, and `/review
// src/a.ts` sent expands in the session: the model server receives the expansion with the argument,
// and the transcript shows the line typed with its expansion folded. Screen dumps go to test-results/tui/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'

describe.skipIf(skipWithoutDocker())('custom slash commands in the interactive CLI', () => {
  let server: ScriptedModelServer | undefined
  let screen: PtyScreen | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-tui-cmds-home-'))
  afterAll(async () => {
    await screen?.kill()
    await server?.close()
    rmSync(home, { recursive: true, force: true, maxRetries: 5 })
  })

  it('completes /review and sends its expansion with the argument', async () => {
    mkdirSync(join(home, 'commands'), { recursive: true })
    writeFileSync(join(home, 'commands/review.md'), '---\ndescription: Review one file for bugs\nargument-hint: FILE\n---\nReview $1 for bugs (MARKER-TUI-REVIEW).\n')
    server = await startScriptedModelServer([{ text: 'Reviewed it.' }])
    const repo = await makeTestRepo({ 'src/a.ts': 'export const a = 1\n' })
    const s = startPtyCli(['--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted'], {
      cols: 120,
      rows: 40,
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    screen = s
    await s.waitFor((l) => l.some((x) => x.startsWith('╭')), 60_000)
    // typed text echoing in the composer shows the UI has the keyboard
    s.write('/rev')
    await s.waitFor((l) => l.some((x) => x.includes('/review FILE — Review one file for bugs')), 20_000)
    s.dump('command-completion')
    s.write('\t')
    await s.waitFor((l) => l.some((x) => /│ \/review\s*│?$/.test(x.trimEnd()) || x.includes('│ /review ')), 10_000)
    s.write('src/a.ts')
    await s.waitFor((l) => l.some((x) => x.includes('/review src/a.ts')), 10_000)
    s.write('\r')
    await s.waitFor('Reviewed it.', 60_000)
    await s.waitFor((l) => l.some((x) => x.includes('› /review src/a.ts')) && l.some((x) => x.includes('expands to 1 line (Ctrl-O)')), 10_000)
    s.dump('command-sent')
    const post = server.requests.filter((r) => r.method === 'POST').at(-1)
    const messages = (post?.body as { messages: Array<{ role: string; content: unknown }> }).messages
    expect(JSON.stringify(messages.filter((m) => m.role === 'user').at(-1)?.content)).toContain('Review src/a.ts for bugs (MARKER-TUI-REVIEW).')
  }, 180_000)
})
