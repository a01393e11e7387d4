// `cortex run --ask commands` on a real pseudo-terminal (node-pty + a headless xterm reading the
// screen): the approval request shows the call once, as the prompt that asks for the answer (the
// event renderer does not print it a second time; the call's own tool row stays), says in words why it
// asks, and the turn goes on after `y`.
// Built CLI, real guest, scripted model server.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('cortex run --ask commands on a pseudo-terminal', () => {
  let server: ScriptedModelServer | undefined
  let screen: PtyScreen | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-pty-approval-home-'))
  afterAll(async () => {
    await screen?.kill()
    await server?.close()
    rmSync(home, { recursive: true, force: true, maxRetries: 5 })
  })

  it('shows the command to approve once, then runs it after y', async () => {
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo ONLY-ONCE-42' } }] }, { text: 'all done' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const s = (screen = startPtyCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--ask', 'commands', 'run it'],
      { cols: 120, rows: 50, env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    ))
    await s.waitFor('allow? [y]es once, [a]lways, [n]o:', 60_000)
    // what stands on the screen when the user is asked
    const before = s.text()
    s.dump('approval-once')
    // the request (the call with its arguments, why it asks) once, as the prompt; the call's own row stays
    expect(before.match(/bash\(command: "echo ONLY-ONCE-42"\)/g), before).toHaveLength(1)
    // why it asks, in words (it was a bare "approval policy commands")
    expect(before.match(/asked because the policy is: ask before each command \(bash\)/g), before).toHaveLength(1)
    expect(before).not.toMatch(/approval policy/)
    expect(before.match(/approval/g), before).toHaveLength(1) // "approval needed"
    expect(before).toContain('approval needed: bash(command: "echo ONLY-ONCE-42")')
    expect(before).toContain('⏺ bash(echo ONLY-ONCE-42)')
    s.write('y\r')
    await s.waitFor('all done', 60_000)
    expect(await Promise.race([s.exited, new Promise<number>((r) => setTimeout(() => r(-1), 20_000))])).toBe(0)
    expect(s.text()).toMatch(/allowed \(allow once\)/)
  }, 120_000)
})
