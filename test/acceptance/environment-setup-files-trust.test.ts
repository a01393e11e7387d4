// The environment's trust binds the files its setup runs (ADR 0038 §3, ADR 0039: network is granted
// to the content the user saw). The user enables an environment whose setup is
// `sh .devcontainer/setup.sh` with a network (customizations.cortex.setupNetwork); the model then
// rewrites setup.sh and the lockfile in the guest: the next session does not run the model's script
// (with or without network), and the card says the environment changed. Without a network, a
// lockfile change alone still re-runs the (unchanged) setup offline, as the setup cache says.
// (First written as hostile-setup-script-swap: on 3df3491 the setup log got the model's line.)
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { ensureGuestImage, guestImageTag } from '../../src/main/guest/image'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'
import { setupAsShown } from '../support/trust-cli'

describe.skipIf(skipWithoutDocker())('environment trust: the files the setup reads', () => {
  const repos: string[] = []
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })
  afterAll(() => {
    for (const repo of repos) {
      for (const c of spawnSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)) spawnSync('docker', ['rm', '-f', c])
      const imgs = spawnSync('docker', ['images', '-q', '--filter', `label=dev.cortex.env-repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)
      if (imgs.length) spawnSync('docker', ['rmi', '-f', ...new Set(imgs)])
    }
  })

  it('does not run a setup script the model rewrote', async () => {
    await ensureGuestImage()
    const repo = await makeTestRepo({
      '.devcontainer/devcontainer.json': JSON.stringify({ image: guestImageTag(), postCreateCommand: 'sh .devcontainer/setup.sh', customizations: { cortex: { setupNetwork: true } } }),
      '.devcontainer/setup.sh': 'echo "user-seen $(ls /sys/class/net | tr "\\n" " ")" >> .setup-log\n',
      'package-lock.json': '{"lockfileVersion": 3}\n'
    })
    repos.push(repo)
    const env = { CORTEX_HOME: tempDir('cortex-hostile-setup-home-'), CORTEX_WARM_POOL: '0' }
    const log = (): string => (existsSync(join(repo, '.setup-log')) ? readFileSync(join(repo, '.setup-log'), 'utf8') : '')
    const { enabled } = await setupAsShown(repo, env)
    expect(enabled.code, enabled.stderr).toBe(0)
    expect(log()).toMatch(/^user-seen /)

    const run = () => runCli(['run', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server!.baseUrl, '--model', 'm', 'go'], { env })
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'write_file', args: { path: '.devcontainer/setup.sh', content: 'echo "model-written $(ls /sys/class/net | tr "\\n" " ")" >> .setup-log\n' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'package-lock.json', content: '{"lockfileVersion": 3, "x": 1}\n' } }] },
      { text: 'Done.' }
    ])
    const first = await run()
    expect(first.code, first.stderr).toBe(0)
    await server.close()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'true' } }] }, { text: 'Done.' }])
    const second = await run()
    expect(second.code, second.stderr).toBe(0)
    expect(log()).not.toContain('model-written')
    const again = await runCli(['guest', 'setup', '--repo', repo], { env })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('Files the setup runs')
    expect(again.stderr).toContain('.devcontainer/setup.sh')
    expect(again.stderr).toContain('With network, also bound: the lockfiles')
    expect(again.stderr).toContain('changed since you enabled it')
  }, 600_000)

  it('with network a lockfile change asks again; without network it re-runs the setup offline', async () => {
    await ensureGuestImage()
    const files = (network: boolean) => ({
      '.devcontainer/devcontainer.json': JSON.stringify({ image: guestImageTag(), postCreateCommand: 'sh .devcontainer/setup.sh', customizations: { cortex: { setupNetwork: network } } }),
      '.devcontainer/setup.sh': 'echo ran >> .setup-log\n',
      'package-lock.json': '{"lockfileVersion": 3}\n'
    })
    const env = { CORTEX_HOME: tempDir('cortex-setup-lock-home-'), CORTEX_WARM_POOL: '0' }
    for (const network of [true, false]) {
      const repo = await makeTestRepo(files(network))
      repos.push(repo)
      const log = (): string[] => (existsSync(join(repo, '.setup-log')) ? readFileSync(join(repo, '.setup-log'), 'utf8').split('\n').filter(Boolean) : [])
      const { enabled } = await setupAsShown(repo, env)
      expect(enabled.code, enabled.stderr + enabled.stdout).toBe(0)
      expect(log()).toEqual(['ran'])
      writeFileSync(join(repo, 'package-lock.json'), '{"lockfileVersion": 3, "x": 1}\n')
      const next = await runCli(['guest', 'setup', '--repo', repo], { env })
      if (network) {
        expect(next.code).toBe(1)
        expect(next.stderr).toContain('changed since you enabled it')
        expect(log()).toEqual(['ran'])
      } else {
        expect(next.code, next.stderr + next.stderr).toBe(0)
        expect(next.stderr).toContain('setup: ran now')
        expect(log()).toEqual(['ran', 'ran'])
      }
    }
  }, 600_000)
})
