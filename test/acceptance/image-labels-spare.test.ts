// Containers inherit their image's labels (ADR 0040 x ADR 0038). A repository Dockerfile with
// `LABEL dev.cortex.role=spare dev.cortex.spare-expires=…` must not make a session guest look like a
// spare: Cortex sets every dev.cortex.* label it judges a guest by at creation (a session guest's
// role, spare key and expiry empty), and a spare is only a container with both labels Cortex writes
// on one (role=spare, managed=spare). A second process started with `--warm` on the same repository
// leaves the first session's live guest alone. (Hostile finding: on 3df3491 that guest was claimed
// as a spare, found to have the wrong key and removed mid-call.)
import { spawnSync } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { ensureGuestImage, guestImageTag } from '../../src/main/guest/image'
import { runCli } from '../support/cli'
import { startStreamCli, type StreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

const ids = (repo: string, extra: string[] = []): string[] =>
  spawnSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo}`, ...extra.flatMap((f) => ['--filter', f])]).stdout.toString().split('\n').filter(Boolean)

describe.skipIf(skipWithoutDocker())('image labels never make a session guest a spare', () => {
  const repos: string[] = []
  const servers: ScriptedModelServer[] = []
  let cli: StreamCli | undefined
  afterEach(async () => {
    cli?.child.kill('SIGKILL')
    await cli?.done
    for (const s of servers.splice(0)) await s.close()
  })
  afterAll(() => {
    for (const repo of repos) {
      for (const c of ids(repo)) {
        // the --warm run leaves a spare: its passwd folder goes with it
        const info = JSON.parse(spawnSync('docker', ['inspect', c]).stdout.toString() || '[]')[0] as { Mounts?: { Destination: string; Source: string }[] } | undefined
        const etc = info?.Mounts?.find((m) => m.Destination === '/etc/passwd')?.Source
        spawnSync('docker', ['rm', '-f', c])
        if (etc) rmSync(dirname(etc), { recursive: true, force: true })
      }
      const imgs = spawnSync('docker', ['images', '-q', '--filter', `label=dev.cortex.env-repo=${repo}`]).stdout.toString().split('\n').filter(Boolean)
      if (imgs.length) spawnSync('docker', ['rmi', '-f', ...new Set(imgs)])
    }
  })

  it("a --warm run on the same repository leaves another session's live guest alone", async () => {
    await ensureGuestImage()
    const repo = await makeTestRepo({
      '.devcontainer/devcontainer.json': JSON.stringify({ build: { dockerfile: 'Dockerfile' } }),
      '.devcontainer/Dockerfile': `FROM ${guestImageTag()}\nLABEL dev.cortex.role=spare dev.cortex.spare-expires=99999999999999\n`
    })
    repos.push(repo)
    const env = { CORTEX_HOME: tempDir('cortex-labels-home-'), CORTEX_WARM_POOL: '0' }
    // the definition's hash as shown, then enabled with it
    const shown = /--hash ([0-9a-f]+)/.exec((await runCli(['guest', 'setup', '--trust', '--repo', repo], { env })).stderr)?.[1]
    expect(shown).toBeDefined()
    const enabled = await runCli(['guest', 'setup', '--trust', '--hash', shown!, '--repo', repo], { env })
    expect(enabled.code, enabled.stderr).toBe(0)

    const a = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'touch .a-started; sleep 25; echo a-finished' } }] }, { text: 'Done.' }])
    servers.push(a)
    cli = startStreamCli(['run', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', a.baseUrl, '--model', 'm', '--input', 'stream-json'], { env })
    cli.send({ type: 'user_message', text: 'a' })
    await cli.waitFor('tool_call_started', undefined, { timeoutMs: 120_000 })
    const guard = Date.now() + 60_000
    while (Date.now() < guard && !existsSync(join(repo, '.a-started'))) await new Promise((r) => setTimeout(r, 200))
    expect(existsSync(join(repo, '.a-started'))).toBe(true)
    // A's session guest runs the project image yet carries Cortex's own values, not the image's
    const running = ids(repo, ['status=running']).map((id) => JSON.parse(spawnSync('docker', ['inspect', id]).stdout.toString())[0].Config.Labels as Record<string, string>)
    const session = running.filter((l) => l['dev.cortex.role'] !== 'checkpoints')
    expect(session).toHaveLength(1)
    expect(session[0]).toMatchObject({ 'dev.cortex.role': '', 'dev.cortex.spare-key': '', 'dev.cortex.spare-expires': '', 'dev.cortex.managed': '1' })
    expect(ids(repo, ['label=dev.cortex.role=spare'])).toEqual([])

    const b = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'true' } }] }, { text: 'Done.' }])
    servers.push(b)
    const second = await runCli(['run', '--warm', '--json', '--repo', repo, '--provider', 'openai-compatible', '--base-url', b.baseUrl, '--model', 'm', 'b'], { env })
    expect(second.code, second.stderr).toBe(0)
    const finished = await cli.waitFor('tool_call_finished', undefined, { timeoutMs: 120_000 })
    expect(finished.isError, JSON.stringify(finished)).toBe(false)
    expect(JSON.stringify(finished)).toContain('a-finished')
    await cli.waitFor('turn_ended', undefined, { timeoutMs: 60_000 })
    cli.end() // a clean exit removes A's guests and passwd folders
    expect((await cli.exit()).code).toBe(0)
    cli = undefined
  }, 600_000)
})
