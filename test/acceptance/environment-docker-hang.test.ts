// A hung Docker engine during a session's start with a trusted project environment (ADR 0038): the
// environment builder's docker CLI calls take the start's signal, so Stop ends the turn at once and
// kills the hung call. Through the built CLI (`cortex run --input stream-json`) with a fake `docker`
// first on PATH that records its call and never answers (the guest itself is reached through the
// engine's socket, which still works: only the CLI calls hang). Without Stop, the start ends at the
// query's deadline with a docker_unavailable error the user reads.
import { existsSync, chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'
import { waitUntil } from '../support/wait-until'

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe.skipIf(skipWithoutDocker())('a hung docker CLI during the project environment start', () => {
  let model: ScriptedModelServer | undefined
  afterAll(async () => {
    await model?.close()
  })

  /** A repository whose environment the user enabled as shown, a fake docker that hangs, and a `cortex run` using it. */
  async function startHung(): Promise<{ cli: ReturnType<typeof startStreamCli>; calls: string }> {
    const home = tempDir('cortex-home-')
    const repo = await makeTestRepo({ '.devcontainer.json': JSON.stringify({ image: 'cortex-test-never-present:hang' }) })
    // the user enables the environment as shown (cortex trust list → enable --hash)
    const listed = await runCli(['trust', 'list', '--repo', repo], { env: { CORTEX_HOME: home } })
    const hash = /environment {2}.* {2}hash ([0-9a-f]{12})\n/.exec(listed.stdout)?.[1]
    expect(hash, listed.stdout).toBeDefined()
    expect((await runCli(['trust', 'enable', 'environment', '--hash', hash!, '--repo', repo], { env: { CORTEX_HOME: home } })).code).toBe(0)

    const fake = tempDir('cortex-fake-docker-')
    const calls = join(fake, 'calls')
    writeFileSync(join(fake, 'docker'), `#!/bin/sh\necho "$$ $*" >> '${calls}'\nexec sleep 600\n`)
    chmodSync(join(fake, 'docker'), 0o755)

    await model?.close()
    model = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'echo hi' } }] }, { text: 'done' }])
    const cli = startStreamCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', model.baseUrl, '--model', 'scripted', '--json', '--input', 'stream-json'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', PATH: `${fake}:${process.env.PATH ?? ''}` }
    })
    cli.send({ type: 'user_message', text: 'go' })
    // `>>` creates the file before `echo` writes to it: wait for the whole first line
    await waitUntil(() => existsSync(calls) && readFileSync(calls, 'utf8').includes('\n'), 120_000, () => `no docker CLI call; stderr: ${cli.stderr()}`)
    return { cli, calls }
  }

  it('Stop ends the turn within 2 s and kills the hung call', async () => {
    const { cli, calls } = await startHung()
    try {
      const [pid, ...call] = readFileSync(calls, 'utf8').split('\n')[0]!.split(' ')
      expect(call.join(' ')).toBe('image inspect --format {{.Id}} cortex-test-never-present:hang')
      const stopped = Date.now()
      cli.send({ type: 'stop' })
      await cli.waitFor('turn_ended', (e) => e.reason === 'stopped', { timeoutMs: 20_000 })
      expect(Date.now() - stopped).toBeLessThan(2_000)
      await waitUntil(() => !alive(Number(pid)), 5_000, () => `the hung docker call ${pid} was left running`)
    } finally {
      cli.end()
      await cli.exit(60_000)
    }
  }, 300_000)

  it('without Stop, the start ends at the query deadline (30 s) with docker_unavailable naming the call', async () => {
    const { cli, calls } = await startHung()
    try {
      const t0 = Date.now()
      const status = await cli.waitFor('guest_status', (e) => e.state === 'error', { timeoutMs: 120_000 }) // hang guard: ~30 s
      expect(status.detail).toBe('the Docker engine did not answer `docker image inspect` within 30 s: check that it runs (docker info), then try again')
      // the call fails with that reason (never reported as the user's Stop), and the turn ends with the typed error
      const done = await cli.waitFor('tool_call_finished', (e) => e.name === 'bash', { timeoutMs: 20_000 })
      expect(done.result).toContain('did not answer `docker image inspect` within 30 s')
      expect(done.result).not.toContain('stopped by the user')
      const error = await cli.waitFor('error', undefined, { timeoutMs: 20_000 })
      expect(error.code).toBe('docker_unavailable')
      const ended = await cli.waitFor('turn_ended', undefined, { timeoutMs: 20_000 })
      expect(ended.reason).not.toBe('stopped')
      expect(Date.now() - t0).toBeLessThan(60_000)
      const pid = Number(readFileSync(calls, 'utf8').split(' ')[0])
      await waitUntil(() => !alive(pid), 5_000, () => `the hung docker call ${pid} was left running`)
    } finally {
      cli.end()
      await cli.exit(60_000)
    }
  }, 300_000)
})
