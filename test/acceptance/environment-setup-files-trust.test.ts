// Hostile review (ADR 0038 §3, ADR 0039): the environment's trust hash covers devcontainer.json and
// the Dockerfile only, not the script its setup command runs. The user enables an environment whose
// setup is `sh .devcontainer/setup.sh` with a network (customizations.cortex.setupNetwork); the
// model then rewrites setup.sh and touches the lockfile (both in the guest); the next session runs
// the model's script in a setup guest WITH a network, and commits its result as every later
// session's image. Expected: a changed setup script disables the environment until the user looks.
// FAILS on 3df3491: the setup log gets the model's line (with the network interfaces it saw).
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { ensureGuestImage, guestImageTag } from '../../src/main/guest/image'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('hostile: the setup script changes after the environment was enabled', () => {
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
    const enabled = await runCli(['guest', 'setup', '--trust', '--repo', repo], { env })
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
  }, 600_000)
})
