// Ctrl-C during `cortex run` on a real pseudo-terminal (node-pty + a headless xterm reading the
// screen): "stopping…" takes the spinner's place; no last frame (`⠋ running bash · 5 s`) is left
// above it (issue 23). Built CLI, real guest, scripted model server running a long command.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('Ctrl-C in cortex run on a pseudo-terminal', () => {
  let server: ScriptedModelServer | undefined
  let screen: PtyScreen | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-pty-ctrlc-home-'))
  afterAll(async () => {
    await screen?.kill()
    await server?.close()
    rmSync(home, { recursive: true, force: true, maxRetries: 5 })
  })

  it('clears the spinner line before printing stopping…', async () => {
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'sleep 60' } }] }, { text: 'not reached' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const s = (screen = startPtyCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--ask', 'never', 'wait a minute'],
      { cols: 120, rows: 40, env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    ))
    await s.waitFor(/running bash · \d+ s/, 90_000)
    s.write('\x03')
    await s.waitFor('stopping…', 20_000)
    const code = await Promise.race([s.exited, new Promise<number>((r) => setTimeout(() => r(-1), 30_000))])
    s.dump('ctrlc-spinner')
    expect(code).toBe(130)
    const lines = s.lines()
    const at = lines.findIndex((l) => l.includes('stopping…'))
    // nothing of the spinner above "stopping…", which starts its own line
    expect(lines.slice(0, at).join('\n'), s.text()).not.toMatch(/running bash ·|waiting for the model ·/)
    expect(lines[at]).toMatch(/^stopping… \(Ctrl-C again to quit at once\)$/)
  }, 150_000)
})
