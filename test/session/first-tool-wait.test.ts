// The first tool call's path (ADR 0026) through the session service, a real Docker guest, the
// real checkpoint guest and the scripted model server over HTTP. The provider is the production
// one with a gate in front of one of its starts, so a slow container is a held one, not a sleep:
// - while the checkpoint guest is held (so the turn's `before` snapshot cannot be taken), the
//   turn's first read_file still runs and finishes; the write_file after it waits for the snapshot,
//   and once it is taken the turn is recorded and rewound byte for byte;
// - while the session's guest start is held, the first model request still leaves, with the branch
//   read on the host and git's status and commits "not read yet"; the request after the first tool
//   (the guest then up) carries the status and the last commit read in the guest, and the
//   sub-folder AGENTS.md only the guest finds.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { GuestProvider } from '../../src/main/guest/guest'
import { checkpointsDirOf, createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { NOT_READ_YET } from '../../src/main/harness/prompt/environment'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type RecordedRequest, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { snapshotFiles } from '../support/checkpoint-fixtures'
import { tempDir } from '../support/temp-dir'

/** A gate: `wait()` resolves once `open()` was called. */
function gate(): { wait(): Promise<void>; open(): void } {
  let open!: () => void
  const p = new Promise<void>((resolve) => (open = resolve))
  return { wait: () => p, open }
}

/** The system messages of a chat-completions request: the stable prompt, then the environment block. */
function systemMessages(req: RecordedRequest): string[] {
  const body = req.body as { messages: Array<{ role: string; content: unknown }> }
  return body.messages.filter((m) => m.role === 'system').map((m) => String(m.content))
}
const systemOf = (req: RecordedRequest): string => systemMessages(req)[0] ?? ''
const environmentOf = (req: RecordedRequest): string => systemMessages(req)[1] ?? ''

/** How long the held write is watched for not landing (ms): ~200x what it takes once dispatched. */
const MUST_NOT_WRITE_WINDOW_MS = 2_000

/** Hang guard for a cold guest start on the shared machine (~0.5-3 s expected). */
const GUEST_START_GUARD_MS = 60_000

describe.skipIf(skipWithoutDocker())('the first tool call waits only for what it needs', () => {
  let server: ScriptedModelServer | undefined
  let service: SessionService | undefined
  const cleanups: Array<() => Promise<unknown> | void> = []
  afterEach(async () => {
    await service?.shutdown()
    await server?.close()
    for (const c of cleanups.splice(0).reverse()) await c()
    service = undefined
    server = undefined
  })

  /** A session over the production provider, with `wrap` putting gates in front of its starts. */
  async function open(files: Record<string, string>, script: ScriptStep[], wrap: (base: GuestProvider) => GuestProvider) {
    ensureAgentBundle()
    const events: EventEnvelope[] = []
    server = await startScriptedModelServer(script)
    const repo = await makeTestRepo(files)
    const dataDir = tempDir('cortex-first-tool-')
    const base = createDefaultGuestProvider({ warmPool: 0, checkpointsDir: checkpointsDirOf(dataDir) })
    cleanups.push(() => base.close())
    service = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl }, guests: wrap(base) })
    service.onEvent((e) => events.push(e))
    const sessionId = (await service.openSession({ repo, approvalPolicy: 'never', mode: 'agent' })).id
    const seen = (): SessionEvent[] => events.map((e) => e.event)
    return { repo, sessionId, seen, service }
  }

  it('a read_file runs before the turn\'s snapshot; the write after it waits for the snapshot and is rewound byte for byte', async () => {
    const held = gate()
    const s = await open({ 'a.txt': 'alpha\n' }, [
      { toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'b.txt', content: 'written\n' } }] },
      { text: 'done' }
    ], (base) => ({
      start: (o) => base.start(o),
      checkpointLease: (repo) => {
        const lease = base.checkpointLease!(repo)
        return lease && { guest: async (signal) => (await held.wait(), lease.guest(signal)), release: () => lease.release() }
      }
    }))
    const before = snapshotFiles(s.repo)
    await s.service.submit({ sessionId: s.sessionId, op: { type: 'user_message', text: 'read then write' } })
    // the checkpoint guest is held: no snapshot can be taken, and the read runs all the same
    await vi.waitFor(() => expect(s.seen().find((e) => e.type === 'tool_call_finished' && e.name === 'read_file')).toMatchObject({ isError: false }), { timeout: GUEST_START_GUARD_MS, interval: 20 })
    const read = s.seen().find((e) => e.type === 'tool_call_finished' && e.name === 'read_file')
    expect(read?.type === 'tool_call_finished' && read.result).toContain('alpha')
    // the write has been dispatched and waits for the snapshot: nothing written yet
    await vi.waitFor(() => expect(s.seen().some((e) => e.type === 'tool_call_started' && e.name === 'write_file')).toBe(true), { timeout: GUEST_START_GUARD_MS, interval: 20 })
    // a window for what must not happen: the write (~10 ms once dispatched) must not land while the snapshot is held
    await expect(vi.waitFor(() => expect(existsSync(join(s.repo, 'b.txt'))).toBe(true), { timeout: MUST_NOT_WRITE_WINDOW_MS, interval: 20 })).rejects.toThrow()
    expect(s.seen().some((e) => e.type === 'tool_call_finished' && e.name === 'write_file')).toBe(false)
    held.open()
    await s.service.idle(s.sessionId)
    expect(readFileSync(join(s.repo, 'b.txt'), 'utf8')).toBe('written\n')
    const changes = s.seen().find((e): e is Extract<SessionEvent, { type: 'turn_changes' }> => e.type === 'turn_changes')
    expect(changes?.files.map((f) => `${f.status} ${f.path}`)).toEqual(['added b.txt'])
    const r = await s.service.revertChanges({ sessionId: s.sessionId, turnId: changes!.turnId, scope: 'rewind' })
    expect(r.status).toBe('reverted')
    expect(snapshotFiles(s.repo)).toEqual(before)
  }, 180_000)

  it('the first model request leaves while the guest starts; the next one carries the facts read in the guest', async () => {
    const held = gate()
    const s = await open({ 'a.txt': 'alpha\n', 'pkg/AGENTS.md': 'MARKER-SUB use pnpm here\n' }, [
      { toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] },
      { text: 'done' }
    ], (base) => ({
      start: async (o) => (await held.wait(), base.start(o)),
      checkpointLease: (repo) => base.checkpointLease!(repo)
    }))
    writeFileSync(join(s.repo, 'a.txt'), 'changed\n') // a status line only git in the guest can tell
    await s.service.submit({ sessionId: s.sessionId, op: { type: 'user_message', text: 'read it' } })
    // the session's guest is held; the request goes all the same (it waited for the guest before: 20 s)
    await vi.waitFor(() => expect(server!.requests.length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 })
    const first = environmentOf(server!.requests[0]!)
    expect(first).toContain('Git repository: yes, branch main')
    expect(first).toContain(`Git status and recent commits: ${NOT_READ_YET}`)
    expect(s.seen().some((e) => e.type === 'guest_status' && e.state === 'ready')).toBe(false)
    held.open()
    await s.service.idle(s.sessionId)
    expect(server!.requests).toHaveLength(2)
    const second = environmentOf(server!.requests[1]!)
    expect(second).toContain('Git repository: yes, branch main')
    expect(second).toContain(' M a.txt')
    expect(second).toContain('- initial')
    expect(second).toMatch(/Guest OS: .*Debian/)
    // the sub-folder instructions, found only through the guest, come with the same request
    expect(systemOf(server!.requests[0]!)).not.toContain('MARKER-SUB')
    expect(systemOf(server!.requests[1]!)).toContain('MARKER-SUB use pnpm here')
  }, 180_000)
})
