// Acceptance (issue 18, item 8): a command that exits non-zero shows as failed to people — `cortex
// run`'s row and the TUI's mark — while the model still gets it as a normal result; a `command not
// found` result tells the model which toolchains this guest has and that the user adds one.
import { afterAll, describe, expect, it } from 'vitest'
import { makeTestRepo } from '../support/guest'
import { runCli } from '../support/cli'
import { startPtyCli, type PtyScreen } from '../support/pty-screen'
import { skipWithoutDocker } from '../support/requirements'
import { sentToolResults, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('honest rows', () => {
  const servers: ScriptedModelServer[] = []
  let screen: PtyScreen | undefined
  const home = tempDir('cortex-home-')
  afterAll(async () => {
    await screen?.kill()
    await Promise.all(servers.map((s) => s.close()))
  })
  const serve = async (...commands: string[]) => {
    const s = await startScriptedModelServer([...commands.map((command) => ({ toolCalls: [{ name: 'bash', args: { command } }] })), { text: 'done' }])
    servers.push(s)
    return s
  }

  it('cortex run: exit 127 is marked failed on its row, exit 0 is not; the model is told what the guest has', async () => {
    const server = await serve('nosuchtool --version', 'false', 'true')
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', 'run it'], { env: { CORTEX_HOME: home } })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/⎿ ✗ exit_code: 127\n/)
    expect(run.stdout).toMatch(/⎿ exit_code: 0\n/)
    const result = sentToolResults(server.requests[1]!).at(-1)
    expect(result?.output).toMatch(/^exit_code: 127\n/)
    expect(result?.output).toContain('`nosuchtool` is not installed in this guest (it has: node, npm, npx, corepack')
    expect(result?.output).toMatch(/python3, pip3, gcc, g\+\+, make.*git, rg, curl, wget, jq, unzip\)/)
    expect(result?.output).toContain("the user adds one through the project's environment")
    // an ordinary failure (the command exists) is marked failed too, without the note
    expect(run.stdout).toMatch(/⎿ ✗ exit_code: 1\n/)
    const failed = sentToolResults(server.requests[2]!).at(-1)
    expect(failed?.output).toMatch(/^exit_code: 1\n/)
    expect(failed?.output).not.toContain('is not installed')
  })

  it('the TUI marks a non-zero exit ✗ and a zero exit ✓', async () => {
    const server = await serve('exit 3', 'true')
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    screen = startPtyCli(['--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--ask', 'never'], {
      cols: 100,
      rows: 30,
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    const s = screen
    await s.waitFor((l) => l.some((x) => x.startsWith('╭')), 60_000)
    await s.waitFor((l) => l.some((x) => x.includes('Agent')), 10_000)
    // typed once the UI has taken the keyboard: wait for the composer, then type and check it shows
    s.write('go')
    await s.waitFor((l) => l.some((x) => x.includes('go')), 10_000)
    s.write('\r')
    // both rows are finished once the second shows its mark (a running row shows a spinner)
    await s.waitFor((l) => l.some((x) => /^[✓✗] bash true/.test(x)), 60_000)
    const text = s.lines()
    s.dump('honest-rows')
    expect(text.find((x) => x.includes('bash exit 3')), text.join('\n')).toMatch(/^✗ bash exit 3 · .* · exit 3/)
    expect(text.find((x) => x.includes('bash true')), text.join('\n')).toMatch(/^✓ bash true/)
  })
})
