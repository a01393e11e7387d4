// `cortex rules add --deny|--allow` through the built CLI: a deny rule `rm *` added ahead of time
// refuses a scripted `rm -rf a.txt; true` under `--ask never` (a.txt stays); an invalid pattern
// exits 1 with one line; the stored rule is printed and listed.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('cortex rules add', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-rules-add-home-'))
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('a deny rule added from the CLI refuses a matching command under --ask never', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const added = await runCli(['rules', 'add', '--deny', 'rm *', '--repo', repo], { env })
    expect(added.stderr).toBe('')
    expect(added.code).toBe(0)
    expect(added.stdout).toMatch(/^stored deny rule for .+:\n[0-9a-f]{8} {2}deny {3}bash {2}rm \*\n$/)
    expect((await runCli(['rules', 'list', '--repo', repo], { env })).stdout).toContain('deny   bash  rm *')

    const bad = await runCli(['rules', 'add', '--allow', '$(x) *', '--repo', repo], { env })
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    expect(bad.stderr).toContain('shell operators')
    expect((await runCli(['rules', 'add', '--repo', repo], { env })).code).toBe(1)

    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'rm -rf a.txt; true' } }] }, { text: 'understood' }])
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--ask', 'never', '--json', 'delete it'], { env })
    expect(run.code).toBe(0)
    const finished = run.events.map((e) => e.event).find((e) => e.type === 'tool_call_finished')
    expect(finished).toMatchObject({ isError: true })
    expect(existsSync(join(repo, 'a.txt'))).toBe(true)
  }, 120_000)
})
