// Session service bounds through its real API, real files, real processes and the scripted model
// server: a log past V8's longest string (~512 MiB) resumes and its next request is small, a 0-byte
// meta.json is rebuilt, a session open in another process is refused (and free again after kill -9),
// and the per-process session cap gives a clear error.
import { spawn, type ChildProcess } from 'node:child_process'
import { chownSync, closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { EventEnvelope } from '../../src/shared/events'
import { createSessionService, type SessionService } from '../../src/main/session'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

const cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

async function service(dataDir: string, server: ScriptedModelServer, maxSessions?: number): Promise<SessionService> {
  const s = await createSessionService({
    dataDir,
    modelSettings: { provider: 'openai-compatible', modelId: 'scripted', baseUrl: server.baseUrl, apiKey: 'k' },
    guests: { start: () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
    eagerGuest: false,
    ...(maxSessions ? { maxSessions } : {})
  })
  cleanup.push(() => s.shutdown())
  return s
}

/** A scripted server, a data folder and (apart from it) a repository folder. */
let repo = ''
async function setup(script: Parameters<typeof startScriptedModelServer>[0] = []): Promise<{ dataDir: string; server: ScriptedModelServer }> {
  const server = await startScriptedModelServer(script)
  cleanup.push(() => server.close())
  const dataDir = mkdtempSync(join(tmpdir(), 'cortex-bounds-'))
  repo = mkdtempSync(join(tmpdir(), 'cortex-bounds-repo-'))
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID) // a root-owned repository is refused
  const made = repo
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }))
  cleanup.push(() => rmSync(made, { recursive: true, force: true }))
  return { dataDir, server }
}

/** A stored session made by a real service, then closed. */
async function storedSession(dataDir: string, server: ScriptedModelServer): Promise<string> {
  const s = await service(dataDir, server)
  const { id } = await s.openSession({ repo, mode: 'agent' })
  await s.closeSession({ sessionId: id })
  return id
}

describe('session bounds', () => {
  it('resumes a 530 MiB log (longer than any JS string) streamed; the next request is small', async () => {
    const { dataDir, server } = await setup([{ text: 'resumed fine' }])
    const id = await storedSession(dataDir, server)
    const file = join(dataDir, 'sessions', id, 'events.jsonl')
    // a log an older version wrote: 106 calls each with a 5 MiB argument, answered, plus small turns
    const fd = openSync(file, 'a')
    const content = 'q'.repeat(5 * 1024 * 1024)
    let seq = 100
    const line = (event: EventEnvelope['event']): string => JSON.stringify({ sessionId: id, seq: ++seq, time: Date.now(), event }) + '\n'
    for (let i = 0; i < 106; i++) {
      writeSync(fd, line({ type: 'user_message', turnId: `t${i}`, text: `write part ${i}` }))
      writeSync(fd, line({ type: 'assistant_message', turnId: `t${i}`, text: '', toolCalls: [{ callId: `c${i}`, name: 'write_file', args: { path: 'big.txt', content } }] }))
      writeSync(fd, line({ type: 'tool_call_finished', turnId: `t${i}`, callId: `c${i}`, name: 'write_file', isError: false, result: `wrote part ${i}` }))
    }
    closeSync(fd)
    expect(statSync(file).size).toBeGreaterThan(0x1fffffe8)
    const s = await service(dataDir, server)
    await s.resumeSession({ sessionId: id })
    await s.submit({ sessionId: id, op: { type: 'user_message', text: 'still there?' } })
    await s.idle(id)
    rmSync(file) // free the disk before the assertions
    const events = await s.sessionEvents({ sessionId: id })
    expect(events.filter((e) => e.event.type === 'tool_call_finished')).toHaveLength(106)
    expect(events.at(-1)?.event).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    const body = JSON.stringify(server.requests[0]?.body)
    expect(body).toContain('wrote part 105')
    expect(Buffer.byteLength(body)).toBeLessThan(2 * 1024 * 1024)
  }, 120_000)

  it('resumes a session whose meta.json is 0 bytes, rebuilt from the log', async () => {
    const { dataDir, server } = await setup()
    const id = await storedSession(dataDir, server)
    writeFileSync(join(dataDir, 'sessions', id, 'meta.json'), '')
    const s = await service(dataDir, server)
    const info = await s.resumeSession({ sessionId: id })
    expect(info).toMatchObject({ id, repo, mode: 'agent' })
  })

  it('refuses a session open in another service or process, and frees it when that process is killed -9', async () => {
    const { dataDir, server } = await setup()
    const id = await storedSession(dataDir, server)
    const a = await service(dataDir, server)
    const b = await service(dataDir, server)
    await a.resumeSession({ sessionId: id })
    await expect(b.resumeSession({ sessionId: id })).rejects.toMatchObject({ code: 'session_locked', message: expect.stringMatching(/already open/) })
    await a.closeSession({ sessionId: id })
    await b.resumeSession({ sessionId: id })
    await b.closeSession({ sessionId: id })

    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../support/hold-session-lock.ts'), dataDir, id], {
      cwd: join(__dirname, '../..'),
      stdio: ['ignore', 'pipe', 'inherit']
    })
    cleanup.push(() => void child.kill('SIGKILL'))
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', () => resolve())
      child.once('exit', (code) => reject(new Error(`holder exited ${code}`)))
    })
    await expect(b.resumeSession({ sessionId: id })).rejects.toMatchObject({ code: 'session_locked', message: expect.stringContaining(`process ${child.pid}`) })
    const gone = new Promise((r) => child.once('exit', r))
    child.kill('SIGKILL')
    await gone
    expect((await b.resumeSession({ sessionId: id })).id).toBe(id)
  }, 60_000)

  it('caps the sessions open at once with a clear error; closing one makes room', async () => {
    const { dataDir, server } = await setup()
    const stored = await storedSession(dataDir, server)
    const s = await service(dataDir, server, 2)
    const first = await s.openSession({ repo, mode: 'agent' })
    await s.openSession({ repo, mode: 'ask' })
    await expect(s.openSession({ repo, mode: 'agent' })).rejects.toMatchObject({ code: 'session_limit', message: expect.stringContaining('CORTEX_MAX_SESSIONS=2') })
    await expect(s.resumeSession({ sessionId: stored })).rejects.toMatchObject({ code: 'session_limit' })
    await s.closeSession({ sessionId: first.id })
    await s.resumeSession({ sessionId: stored })
    expect(await s.listSessions({})).toHaveLength(2)
  })

  it('reads the cap from CORTEX_MAX_SESSIONS and rejects a bad value', async () => {
    const { dataDir, server } = await setup()
    const saved = process.env.CORTEX_MAX_SESSIONS
    cleanup.push(() => {
      if (saved === undefined) delete process.env.CORTEX_MAX_SESSIONS
      else process.env.CORTEX_MAX_SESSIONS = saved
    })
    process.env.CORTEX_MAX_SESSIONS = '1'
    const s = await service(dataDir, server)
    await s.openSession({ repo, mode: 'agent' })
    await expect(s.openSession({ repo, mode: 'agent' })).rejects.toMatchObject({ code: 'session_limit' })
    process.env.CORTEX_MAX_SESSIONS = 'lots'
    await expect(service(dataDir, server)).rejects.toMatchObject({ code: 'invalid_input' })
  })
})
