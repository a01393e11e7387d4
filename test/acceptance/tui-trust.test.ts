// The trust card in the interactive CLI (issue 21 item 2), in a pseudo-terminal with a real guest
// and the scripted model: a repository's `.claude/settings.json` hook is listed with exactly what it
// runs when the turn starts, stays off for that turn, and `/trust enable` enables it (stored in
// CORTEX_HOME/trust.json); the next turn runs it in the guest. Screen dumps go to test-results/tui/.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'

describe.skipIf(skipWithoutDocker())('cortex (interactive): the trust card', () => {
  let server: ScriptedModelServer | undefined
  let screen: PtyScreen | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-tui-trust-home-'))
  afterAll(async () => {
    await screen?.kill()
    await screen?.exited
    await server?.close()
    rmSync(home, { recursive: true, force: true, maxRetries: 5 })
  })

  it('lists the hook, keeps it off, and /trust enable turns it on for the next turn', async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'bash', args: { command: 'echo one' } }] },
      { text: 'First done.' },
      { toolCalls: [{ name: 'bash', args: { command: 'echo two' } }] },
      { text: 'Second done.' }
    ])
    const repo = await makeTestRepo({
      '.claude/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo ran >> .hook-log' }] }] } })
    })
    screen = startPtyCli(['--repo', repo, '--ask', 'never', '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted'], { cols: 140, rows: 50, env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } })
    const s = screen
    await s.waitFor((l) => l.some((x) => x.startsWith('╭─ Agent')), 60_000)
    const say = async (text: string): Promise<void> => {
      s.write(text)
      await s.waitFor((l) => l.some((x) => x.includes(text)), 10_000)
      s.write('\r')
    }
    await say('go')
    await s.waitFor('First done.', 60_000)
    await s.waitFor('PreToolUse (Bash): echo ran >> .hook-log', 10_000)
    await s.waitFor('/trust enable to enable them for this repository', 10_000)
    s.dump('trust-card')
    expect(existsSync(join(repo, '.hook-log'))).toBe(false)

    await say('/trust enable')
    await s.waitFor(() => existsSync(join(home, 'trust.json')) && readFileSync(join(home, 'trust.json'), 'utf8').includes('"hooks"'), 10_000)
    await say('again')
    await s.waitFor('Second done.', 60_000)
    expect(readFileSync(join(repo, '.hook-log'), 'utf8')).toBe('ran\n')
  }, 180_000)
})
