// A sparse lockfile does not freeze the host (ADR 0038 §2.3, "every wait ends on Stop within 2 s"):
// `truncate -s 1T package-lock.json` in the guest costs no disk, and the next guest start hashes the
// repository's lockfiles on the host. Lockfiles are now read asynchronously in chunks, at most
// 64 MiB a file (a bigger one is keyed by its size and time, never read), ending on Stop: the turn
// reaches its model request and Stop ends it within 2 s. The file is made from the host here, as
// the model's `truncate` in a session would leave it. (Hostile finding: on 3df3491 the start read a
// terabyte of zeros on the main thread: no request, no event, for minutes, and Stop unseen.)
import { spawnSync } from 'node:child_process'
import { chownSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { ensureGuestImage, guestImageTag } from '../../src/main/guest/image'
import { runCli } from '../support/cli'
import { startStreamCli, type StreamCli } from '../support/cli-stream'
import { makeTestRepo, TEST_REPO_GID, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

describe.skipIf(skipWithoutDocker())('a sparse lockfile at a guest start', () => {
  const repos: string[] = []
  let model: ScriptedModelServer | undefined
  let cli: StreamCli | undefined
  afterEach(async () => {
    cli?.child.kill('SIGKILL')
    await cli?.done
    await model?.close()
  })
  afterAll(() => {
    for (const repo of repos) {
      writeFileSync(join(repo, 'package-lock.json'), '{}\n') // drop the sparse terabyte before the folder goes
      for (const c of spawnSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)) spawnSync('docker', ['rm', '-f', c])
      const imgs = spawnSync('docker', ['images', '-q', '--filter', `label=dev.cortex.env-repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)
      if (imgs.length) spawnSync('docker', ['rmi', '-f', ...new Set(imgs)])
    }
  })

  it('never blocks the start: the turn reaches the model and Stop ends it within 2 s', async () => {
    await ensureGuestImage()
    const repo = await makeTestRepo({ '.devcontainer.json': JSON.stringify({ image: guestImageTag() }), 'package-lock.json': '{}\n' })
    repos.push(repo)
    const env = { CORTEX_HOME: tempDir('cortex-sparselock-home-'), CORTEX_WARM_POOL: '0' }
    // the definition's hash as shown, then enabled with it
    const shown = /--hash ([0-9a-f]+)/.exec((await runCli(['guest', 'setup', '--trust', '--repo', repo], { env })).stderr)?.[1]
    expect(shown).toBeDefined()
    const enabled = await runCli(['guest', 'setup', '--trust', '--hash', shown!, '--repo', repo], { env })
    expect(enabled.code, enabled.stderr).toBe(0)
    const lock = join(repo, 'package-lock.json')
    truncateSync(lock, 2 ** 40)
    if (process.getuid?.() === 0) chownSync(lock, TEST_REPO_UID, TEST_REPO_GID)

    model = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'sleep 60' } }] }, { text: 'Done.' }])
    cli = startStreamCli(['run', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'm', '--input', 'stream-json'], { env })
    cli.send({ type: 'user_message', text: 'go' })
    await cli.waitFor('turn_started', undefined, { timeoutMs: 120_000 })
    // the turn goes on to its model request once its guest is up
    const guard = Date.now() + 20_000
    while (Date.now() < guard && model.requests.length === 0) await new Promise((r) => setTimeout(r, 100))
    expect(model.requests.length).toBeGreaterThan(0)
    const t0 = Date.now()
    cli.send({ type: 'stop' })
    await cli.waitFor('turn_ended', undefined, { timeoutMs: 30_000 })
    expect(Date.now() - t0).toBeLessThan(2000)
    cli.end() // a clean exit removes the session's guests and passwd folders
    expect((await cli.exit()).code).toBe(0)
    cli = undefined
  }, 300_000)
})
