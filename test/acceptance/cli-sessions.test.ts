// Issue 23 item 11 (`cortex sessions`) through the built CLI and the scripted model: each stored
// session is listed with its title (its first message), and `--repo DIR` lists only that
// repository's sessions (before: no titles, and --repo was an unknown option).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('cortex sessions', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-sessions-home-'))
  afterAll(async () => {
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('shows titles and filters by repository', async () => {
    server = await startScriptedModelServer([{ text: 'One.' }, { text: 'Two.' }])
    const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    const model = ['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm']
    const one = await makeTestRepo({ 'a.txt': '1\n' })
    const two = await makeTestRepo({ 'b.txt': '2\n' })
    expect((await runCli(['run', '--repo', one, ...model, 'first task in one'], { env })).code).toBe(0)
    expect((await runCli(['run', '--repo', two, ...model, 'second task in two'], { env })).code).toBe(0)

    const all = await runCli(['sessions'], { env })
    expect(all.code).toBe(0)
    const rows = all.stdout.trim().split('\n')
    expect(rows).toHaveLength(2)
    expect(rows[0]).toMatch(new RegExp(`${one}  first task in one$`))
    expect(rows[1]).toMatch(new RegExp(`${two}  second task in two$`))

    const only = await runCli(['sessions', '--repo', two], { env })
    expect(only.code, only.stderr).toBe(0)
    expect(only.stdout.trim().split('\n')).toEqual([rows[1]])
  }, 120_000)
})
