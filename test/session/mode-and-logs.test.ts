// The session service's loose ends, over real components (a real session store on disk, the real
// Docker provider pointed at a dead socket, the real JSON-lines file logger, the real turn loop
// against the scripted HTTP model server): a set_mode switch is stored in meta.json and a resume
// starts in it; a guest start failure is logged with its cause; tool_output events carry turnId.
import { chownSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { SessionEvent } from '../../src/shared/events'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import { runTurn } from '../../src/main/harness/turn-loop'
import { createLanguageModel } from '../../src/main/providers'
import { createFileLogger, createSessionService, type SessionService } from '../../src/main/session'
import { SessionStore } from '../../src/main/store/session-store'
import { defineTool } from '../../src/main/tools/tool'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

const services: SessionService[] = []
const servers: ScriptedModelServer[] = []
afterEach(async () => {
  await Promise.allSettled(services.splice(0).map((s) => s.shutdown()))
  await Promise.allSettled(servers.splice(0).map((s) => s.close()))
})

/** A repository folder that is not root-owned (root-owned repositories are refused). */
function makeRepo(): string {
  const repo = tempDir('cortex-mode-repo-')
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
  return repo
}

/** A Docker provider whose engine never answers: every start fails with docker_unavailable and its cause. */
const deadDocker = (): DockerGuestProvider => new DockerGuestProvider({ dockerOptions: { socketPath: join(tmpdir(), 'cortex-no-such-docker.sock') } })

const settings = { provider: 'openai-compatible' as const, modelId: 'scripted', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' }

describe('session mode in meta.json', () => {
  it('follows set_mode, and a resume in a new service starts in the mode last set', async () => {
    const dataDir = tempDir('cortex-mode-')
    const first = await createSessionService({ dataDir, modelSettings: settings, guests: deadDocker(), eagerGuest: false })
    services.push(first)
    const { id } = await first.openSession({ repo: makeRepo(), mode: 'agent' })
    const store = new SessionStore(dataDir)
    expect(store.readMeta(id)?.mode).toBe('agent')
    await first.submit({ sessionId: id, op: { type: 'set_mode', mode: 'plan' } })
    expect(store.readMeta(id)?.mode).toBe('plan')
    await first.submit({ sessionId: id, op: { type: 'set_mode', mode: 'ask' } })
    expect(store.readMeta(id)?.mode).toBe('ask')
    await first.shutdown()

    const second = await createSessionService({ dataDir, modelSettings: settings, guests: deadDocker(), eagerGuest: false })
    services.push(second)
    const info = await second.resumeSession({ sessionId: id })
    expect(info.mode).toBe('ask')
  })
})

describe('session logging', () => {
  it('logs a guest start failure with its cause to the log file', async () => {
    const dataDir = tempDir('cortex-log-')
    const file = join(dataDir, 'cortex.log')
    // a turn whose first tool needs the guest: the start fails and the turn ends with the error
    const server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'true' } }] }])
    servers.push(server)
    const service = await createSessionService({
      dataDir,
      modelSettings: { ...settings, baseUrl: server.baseUrl },
      guests: deadDocker(),
      eagerGuest: false,
      logger: createFileLogger({ file, level: 'debug' })
    })
    services.push(service)
    const { id } = await service.openSession({ repo: makeRepo() })
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'run it' } })
    await service.idle(id)

    const records = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    const failed = records.find((r) => r.msg === 'guest start failed' && r.sessionId === id)
    expect(failed, JSON.stringify(records, null, 1)).toMatchObject({ level: 'error', code: 'docker_unavailable' })
    expect(String(failed?.error)).toMatch(/no Docker engine answered/)
    expect(String(failed?.cause)).toMatch(/ENOENT|ECONNREFUSED/) // the socket error underneath
    expect(records.find((r) => r.msg === 'tool call failed; the turn ends')).toMatchObject({ sessionId: id, tool: 'bash', code: 'docker_unavailable' })
  })
})

describe('tool_output events', () => {
  it('carry the turnId of the turn whose call streams them', async () => {
    const server = await startScriptedModelServer([{ toolCalls: [{ name: 'bash', args: { command: 'x' } }] }, { text: 'done' }])
    servers.push(server)
    const echo = defineTool({
      name: 'bash',
      description: 'streams two chunks without a guest',
      inputSchema: z.object({ command: z.string() }),
      needsGuest: false,
      execute: async (_input, ctx) => {
        ctx.emitOutput('stdout', 'one\n')
        ctx.emitOutput('stderr', 'two\n')
        return { output: 'ok' }
      }
    })
    const emitted: SessionEvent[] = [{ type: 'user_message', turnId: 'turn-42', text: 'stream something' }]
    const outcome = await runTurn({
      turnId: 'turn-42',
      model: createLanguageModel({ ...settings, baseUrl: server.baseUrl }),
      signal: new AbortController().signal,
      catalog: { bash: echo },
      getMode: () => 'agent',
      events: () => emitted,
      emit: (e) => emitted.push(e),
      getGuest: () => Promise.reject(new Error('no guest needed')),
      session: { getTodos: () => [], setTodos: () => undefined, setPlan: () => undefined },
      classifyError: (err) => {
        throw err
      },
      systemPrompt: () => 'test'
    })
    expect(outcome).toBe('completed')
    const started = emitted.find((e) => e.type === 'tool_call_started')
    const outputs = emitted.filter((e) => e.type === 'tool_output')
    expect(outputs).toHaveLength(2)
    for (const o of outputs) expect(o).toMatchObject({ turnId: 'turn-42', callId: started?.type === 'tool_call_started' ? started.callId : '?' })
  })
})
