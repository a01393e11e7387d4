// The CLI's log (issue 7): `cortex run` writes JSON-lines records to <CORTEX_HOME>/cortex.log, and
// to stderr with CORTEX_LOG=debug or --verbose; a guest start failure is logged with its cause.
// Also: `cortex run --resume` continues in the mode last set. Through the built CLI (npm run
// build:node) against the scripted HTTP model server; Docker is made unreachable by DOCKER_HOST.
import { chownSync, existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

type LogRecord = Record<string, unknown> & { level: string; msg: string }

const servers: ScriptedModelServer[] = []
afterEach(async () => {
  await Promise.allSettled(servers.splice(0).map((s) => s.close()))
})

/** A fresh data folder and a repository folder that is not root-owned. */
function setup(): { home: string; repo: string } {
  const home = tempDir('cortex-home-')
  const repo = tempDir('cortex-log-repo-')
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
  return { home, repo }
}

/** The JSON records among `text`'s lines (other lines, e.g. rendered output, are skipped). */
function records(text: string): LogRecord[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{"time"'))
    .map((l) => JSON.parse(l) as LogRecord)
}

/** A model that asks for a bash command (so the turn needs the guest). */
async function bashModel(): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'true' } }] }, { text: 'unreachable' }])
  servers.push(server)
  return server
}

const DEAD_DOCKER = `unix://${join(tmpdir(), 'cortex-no-docker-here.sock')}`

describe('cortex run logging', () => {
  it('with CORTEX_LOG=debug, a guest start failure is logged with its cause on stderr and in cortex.log', async () => {
    const { home, repo } = setup()
    const server = await bashModel()
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'go'], {
      env: { CORTEX_HOME: home, CORTEX_LOG: 'debug', DOCKER_HOST: DEAD_DOCKER }
    })
    expect(run.code).toBe(1)
    const onStderr = records(run.stderr)
    const inFile = records(readFileSync(join(home, 'cortex.log'), 'utf8'))
    for (const log of [onStderr, inFile]) {
      const failed = log.find((r) => r.msg === 'guest start failed' && r.level === 'error')
      expect(failed, JSON.stringify(log, null, 1)).toMatchObject({ code: 'docker_unavailable' })
      expect(String(failed?.error)).toContain(DEAD_DOCKER)
      expect(String(failed?.cause)).toMatch(/ENOENT|ECONNREFUSED/)
      // the provider's own record and debug records are there too
      expect(log.some((r) => r.component === 'guest' && r.msg === 'guest start failed')).toBe(true)
      expect(log.some((r) => r.level === 'debug')).toBe(true)
    }
  })

  it('without CORTEX_LOG, stderr carries no records while cortex.log keeps info and above', async () => {
    const { home, repo } = setup()
    const server = await bashModel()
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'go'], {
      env: { CORTEX_HOME: home, CORTEX_LOG: '', DOCKER_HOST: DEAD_DOCKER }
    })
    expect(run.code).toBe(1)
    expect(records(run.stderr)).toEqual([])
    const inFile = records(readFileSync(join(home, 'cortex.log'), 'utf8'))
    expect(inFile.find((r) => r.msg === 'guest start failed' && r.level === 'error')).toBeDefined()
    expect(inFile.some((r) => r.level === 'debug')).toBe(false)
  })

  it('--verbose logs debug records to stderr', async () => {
    const { home, repo } = setup()
    const server = await startScriptedModelServer([{ text: 'hello' }])
    servers.push(server)
    const run = await runCli(['run', '--verbose', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'hi'], {
      env: { CORTEX_HOME: home, CORTEX_LOG: '', DOCKER_HOST: DEAD_DOCKER }
    })
    expect(run.code).toBe(0)
    expect(records(run.stderr).some((r) => r.level === 'debug')).toBe(true)
    expect(existsSync(join(home, 'cortex.log'))).toBe(true)
  })
})

describe('cortex run --resume', () => {
  it('continues in the mode last set, unless --mode names another', async () => {
    const { home, repo } = setup()
    const server = await startScriptedModelServer([{ text: 'one' }, { text: 'two' }, { text: 'three' }])
    servers.push(server)
    const flags = ['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json']
    const env = { CORTEX_HOME: home, DOCKER_HOST: DEAD_DOCKER }
    const first = await runCli(['run', '--repo', repo, '--mode', 'plan', ...flags, 'first'], { env })
    expect(first.code).toBe(0)
    const id = first.events[0]?.sessionId
    expect(id).toBeTruthy()
    const modeOfTurn = (events: typeof first.events): string | undefined => {
      const started = events.find((e) => e.event.type === 'turn_started')?.event
      return started?.type === 'turn_started' ? started.mode : undefined
    }
    const meta = (): { mode: string } => JSON.parse(readFileSync(join(home, 'sessions', String(id), 'meta.json'), 'utf8')) as { mode: string }

    const resumed = await runCli(['run', '--resume', String(id), ...flags, 'second'], { env })
    expect(resumed.code).toBe(0)
    expect(modeOfTurn(resumed.events)).toBe('plan')
    expect(meta().mode).toBe('plan')

    const switched = await runCli(['run', '--resume', String(id), '--mode', 'ask', ...flags, 'third'], { env })
    expect(switched.code).toBe(0)
    expect(modeOfTurn(switched.events)).toBe('ask')
    expect(meta().mode).toBe('ask')
  })
})

describe.skipIf(skipWithoutDocker())('cortex run logging with Docker', () => {
  it('logs a missing user-named image (CORTEX_GUEST_IMAGE) with its cause', async () => {
    const { home, repo } = setup()
    const server = await bashModel()
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', 'go'], {
      env: { CORTEX_HOME: home, CORTEX_LOG: 'debug', CORTEX_GUEST_IMAGE: 'cortex-nonexistent-image:tag' }
    })
    expect(run.code).toBe(1)
    const failed = records(run.stderr).find((r) => r.msg === 'guest start failed' && r.level === 'error')
    expect(failed).toMatchObject({ code: 'image_unavailable' })
    expect(String(failed?.error)).toContain('cortex-nonexistent-image:tag')
  })
})
