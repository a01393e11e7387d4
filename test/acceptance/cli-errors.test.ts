// The CLI's exit statuses: a configuration error is one line and exit 1; Ctrl-C stops the turn
// (killing the command in the guest) and exits 130.
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

const home = tempDir('cortex-home-')

describe('cortex run errors', () => {
  it('a missing base URL is a one-line error naming the setting, exit 1', async () => {
    const run = await runCli(['run', '--repo', home, '--provider', 'openai-compatible', '--model', 'm', 'hi'], {
      env: { CORTEX_HOME: home, CORTEX_BASE_URL: '' }
    })
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.stderr).toMatch(/^error: .*--base-url/)
  })

  it('a missing API key names the variable', async () => {
    const run = await runCli(['run', '--repo', home, '--provider', 'anthropic', 'hi'], { env: { CORTEX_HOME: home, ANTHROPIC_API_KEY: '' } })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/ANTHROPIC_API_KEY/)
  })

  it('an invalid mode is a usage error', async () => {
    const run = await runCli(['run', '--repo', home, '--mode', 'yolo', 'hi'], { env: { CORTEX_HOME: home } })
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/ask, plan, spec, agent/)
  })
})

describe.skipIf(skipWithoutDocker())('cortex run Ctrl-C', () => {
  let server: ScriptedModelServer
  afterAll(async () => server?.close())

  it('stops a long bash command in the guest and exits 130', async () => {
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo started; sleep 120' } }] }, { text: 'never' }])
    // a repository of its own: CORTEX_HOME and root-owned folders are refused as repositories
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const t0 = Date.now()
    let sent = false
    const run = await runCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json', 'sleep'],
      {
        env: { CORTEX_HOME: home },
        onStdout: (chunk, child) => {
          if (!sent && chunk.includes('"tool_output"')) {
            sent = true
            child.kill('SIGINT')
          }
        }
      }
    )
    expect(sent).toBe(true)
    expect(run.code).toBe(130)
    expect(Date.now() - t0).toBeLessThan(60_000) // hang guard only: the command would run 120 s
    const finished = run.events.find((e) => e.event.type === 'tool_call_finished')?.event
    expect(finished).toMatchObject({ name: 'bash', isError: true })
    expect(run.events.some((e) => e.event.type === 'turn_ended' && e.event.reason === 'stopped')).toBe(true)
    expect(server.requests).toHaveLength(1)
  })
})
