// Acceptance: a settings file with one bad value loses nothing, through the built CLI, a real
// Docker guest and the scripted model server. `cortex run` says what is wrong on stderr and uses
// every other saved setting (here the model connection: the run reaches the scripted server with
// no flag naming it); `cortex guest setup --dependency-volumes` saves its choice and keeps the bad
// value as the user wrote it. A file that is not JSON is never overwritten.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

describe.skipIf(skipWithoutDocker())('a settings file with a bad value', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-home-'))
  const file = join(home, 'settings.json')
  const repos: string[] = []
  const servers: ScriptedModelServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
    for (const r of repos.splice(0)) rmSync(r, { recursive: true, force: true })
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_WARM_GUEST: '0' }

  it('applies every other setting, says what is wrong, and keeps the value through a save', async () => {
    const server = await startScriptedModelServer([{ text: 'done' }])
    servers.push(server)
    const repo = await makeTestRepo({ 'a.txt': 'alpha\n' })
    repos.push(repo)
    const hooks = { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] }
    writeFileSync(file, JSON.stringify({ provider: 'openai-compatible', baseUrl: server.baseUrl, model: 'scripted', warmPool: 99, hooks }))

    const run = await runCli(['run', '--repo', repo, '--json', 'hello'], { env })
    expect(run.code, run.stderr).toBe(0)
    expect(server.requests.filter((r) => r.stepIndex !== undefined)).toHaveLength(1)
    expect((server.requests[0]!.body as { model: string }).model).toBe('scripted')
    expect(run.stderr).toContain(`warning: ${file}: "warmPool" must be 0 to 8: its default is used until it is fixed`)

    const setup = await runCli(['guest', 'setup', '--repo', repo, '--dependency-volumes', 'off'], { env })
    expect(setup.stderr).toContain(`dependency volumes set to off for ${repo}`)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      provider: 'openai-compatible', baseUrl: server.baseUrl, model: 'scripted', warmPool: 99, hooks, dependencyVolumesRepos: { [repo]: 'off' }
    })
  }, 120_000)

  it('never overwrites a file that is not JSON', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'alpha\n' })
    repos.push(repo)
    const text = '{ "model": "scripted", }\n'
    writeFileSync(file, text)
    const setup = await runCli(['guest', 'setup', '--repo', repo, '--dependency-volumes', 'on'], { env })
    expect(setup.code).not.toBe(0)
    expect(setup.stderr).toMatch(/settings\.json is not valid JSON: .*: fix or remove it first \(it was left as it is\)/)
    expect(readFileSync(file, 'utf8')).toBe(text)
  }, 60_000)
})
