// The session API and turn loop over real HTTP (scripted model server, all three wire formats),
// for behaviour that needs no guest: mode refusal, todos, malformed calls, Stop, provider errors.
// A guest provider that records starts and refuses proves no guest is touched by these paths.
import { chownSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { GuestProvider } from '../../src/main/guest/guest'
import type { ModelSettings } from '../../src/main/providers'
import { createSessionService, type SessionService } from '../../src/main/session'
import { SessionStore } from '../../src/main/store/session-store'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import {
  offeredToolNames,
  sentToolResults,
  startScriptedModelServer,
  type ScriptStep,
  type ScriptedModelServer
} from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

const ALL_TOOLS = ['bash', 'edit_file', 'glob', 'grep', 'plan', 'read_file', 'task', 'todo_read', 'todo_write', 'write_file']

interface Harness {
  service: SessionService
  server: ScriptedModelServer
  events: EventEnvelope[]
  starts: number
  dataDir: string
  /** The repository folder (apart from the data folder). */
  repo: string
  sessionId: string
  /** Run one turn to its end and return the events of that turn. */
  turn(text: string): Promise<SessionEvent[]>
}

let open: Harness[] = []
afterEach(async () => {
  for (const h of open) {
    await h.service.shutdown()
    await h.server.close()
  }
  open = []
})

async function harness(
  script: ScriptStep[],
  opts: { mode?: 'ask' | 'plan' | 'agent'; provider?: ModelSettings['provider']; baseUrl?: string } = {}
): Promise<Harness> {
  const server = await startScriptedModelServer(script)
  const provider = opts.provider ?? 'openai-compatible'
  const dataDir = tempDir('cortex-svc-')
  const h = { events: [] as EventEnvelope[], starts: 0, server, dataDir } as Harness
  const guests: GuestProvider = {
    start: async () => {
      h.starts++
      throw new CortexError('guest_failed', 'no guest in this test')
    }
  }
  h.service = await createSessionService({
    dataDir,
    modelSettings: { provider, modelId: 'scripted', baseUrl: opts.baseUrl ?? server.baseUrl, apiKey: 'test-key' },
    guests,
    eagerGuest: false
  })
  h.service.onEvent((e) => h.events.push(e))
  // a repository apart from the data folder, not root-owned (both are refused as repositories)
  const repo = tempDir('cortex-svc-repo-')
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
  h.repo = repo
  h.sessionId = (await h.service.openSession({ repo, mode: opts.mode ?? 'agent' })).id
  h.turn = async (text) => {
    const from = h.events.length
    await h.service.submit({ sessionId: h.sessionId, op: { type: 'user_message', text } })
    await h.service.idle(h.sessionId)
    return h.events.slice(from).map((e) => e.event)
  }
  open.push(h)
  return h
}

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type)

describe.each(['openai-compatible', 'openai', 'anthropic'] as const)('turn loop over %s', (provider) => {
  it('streams text, runs todo_write, feeds the result back and ends when the model stops calling tools', async () => {
    const h = await harness(
      [
        { text: 'Planning the work.', toolCalls: [{ name: 'todo_write', args: { todos: [{ content: 'read code', status: 'in_progress' }] } }] },
        { text: 'All done.' }
      ],
      { provider }
    )
    const events = await h.turn('organise the work')
    expect(ofType(events, 'text_delta').map((e) => e.text).join('')).toBe('Planning the work.All done.')
    expect(ofType(events, 'todos_updated')[0]?.todos).toEqual([{ content: 'read code', status: 'in_progress' }])
    const [result] = ofType(events, 'tool_call_finished')
    expect(result).toMatchObject({ name: 'todo_write', isError: false })
    expect(events.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    expect(h.server.requests).toHaveLength(2)
    expect(offeredToolNames(h.server.requests[0]!).sort()).toEqual(ALL_TOOLS)
    expect(sentToolResults(h.server.requests[1]!).map((r) => r.output)).toEqual([result!.result])
    expect(h.starts).toBe(0)
  })
})

describe('session service', () => {
  it('ask mode offers only read_file, glob, grep and refuses a replayed write_file without a guest', async () => {
    const h = await harness(
      [{ toolCalls: [{ name: 'write_file', args: { path: 'x.txt', content: 'x' } }] }, { text: 'ok' }],
      { mode: 'ask' }
    )
    const events = await h.turn('write x')
    expect(offeredToolNames(h.server.requests[0]!).sort()).toEqual(['glob', 'grep', 'read_file', 'task'])
    const [refused] = ofType(events, 'tool_call_finished')
    expect(refused?.isError).toBe(true)
    expect(refused?.result).toMatch(/not available in ask mode/)
    expect(h.starts).toBe(0)
  })

  it('answers unknown tools and malformed arguments with error results and goes on', async () => {
    const h = await harness([
      { toolCalls: [{ name: 'launch_rockets', args: {} }, { name: 'todo_write', args: { raw: '{"todos": [' } }] },
      { toolCalls: [{ name: 'todo_write', args: { todos: [{ content: 'x', status: 'bogus' }] } }] },
      { text: 'recovered' }
    ])
    const events = await h.turn('go')
    const results = ofType(events, 'tool_call_finished')
    expect(results.map((r) => r.isError)).toEqual([true, true, true])
    expect(results[0]?.result).toMatch(/does not exist/)
    expect(results[1]?.result).toMatch(/not valid JSON|invalid arguments/)
    expect(results[2]?.result).toMatch(/invalid arguments for todo_write/)
    expect(events.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    expect(ofType(events, 'todos_updated')).toHaveLength(0)
  })

  it('Stop aborts a hanging stream; the next turn sees the history and runs', async () => {
    const h = await harness([{ text: 'thinking very hard', hangAfterText: true }, { text: 'second answer' }])
    await h.service.submit({ sessionId: h.sessionId, op: { type: 'user_message', text: 'first' } })
    // a message sent during the turn is queued, not refused; removed here, so Stop ends all work
    await h.service.submit({ sessionId: h.sessionId, op: { type: 'user_message', text: 'again' } })
    const queued = h.events.map((e) => e.event).find((e) => e.type === 'message_queued')
    expect(queued).toMatchObject({ text: 'again' })
    if (queued?.type === 'message_queued') await h.service.submit({ sessionId: h.sessionId, op: { type: 'remove_queued', queueId: queued.queueId } })
    while (!h.events.some((e) => e.event.type === 'text_delta')) await new Promise((r) => setTimeout(r, 10))
    await h.service.submit({ sessionId: h.sessionId, op: { type: 'stop' } })
    await h.service.idle(h.sessionId)
    expect(h.events.at(-1)?.event).toMatchObject({ type: 'turn_ended', reason: 'stopped' })
    await h.turn('second')
    expect(h.events.at(-1)?.event).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    expect(h.server.requests[0]?.closedByClient).toBe(true)
    const body = JSON.stringify(h.server.requests[1]?.body)
    expect(body).toContain('first')
    expect(body).toContain('thinking very hard')
  })

  it('set_mode changes the tools offered on the next request', async () => {
    const h = await harness([{ text: 'a' }, { text: 'b' }])
    await h.turn('one')
    await h.service.submit({ sessionId: h.sessionId, op: { type: 'set_mode', mode: 'plan' } })
    await h.turn('two')
    expect(offeredToolNames(h.server.requests[1]!).sort()).toEqual(['glob', 'grep', 'plan', 'read_file', 'task'])
    expect(h.events.some((e) => e.event.type === 'mode_changed')).toBe(true)
  })

  it('an unreachable model server ends the turn with a provider_unreachable error naming the setting', async () => {
    const closed = await startScriptedModelServer([])
    const url = closed.baseUrl
    await closed.close()
    const h = await harness([], { baseUrl: url })
    const events = await h.turn('hello')
    const [error] = ofType(events, 'error')
    expect(error?.code).toBe('provider_unreachable')
    expect(error?.message).toContain('--base-url')
    expect(events.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'error' })
  })

  it('persists the session as a JSONL log without ephemeral deltas', async () => {
    const h = await harness([{ toolCalls: [{ name: 'todo_read', args: {} }] }, { text: 'bye' }])
    await h.turn('hi')
    await h.service.closeSession({ sessionId: h.sessionId })
    const log = new SessionStore(h.dataDir).load(h.sessionId)
    expect(log.skipped).toBe(0)
    const types = log.envelopes.map((e) => e.event.type)
    expect(types).toContain('tool_call_finished')
    expect(types).not.toContain('text_delta')
    expect(log.envelopes.map((e) => e.seq)).toEqual([...log.envelopes.map((e) => e.seq)].sort((a, b) => a - b))
  })

  it('resumes a stored session: history rebuilt, an unfinished tool call closed as interrupted', async () => {
    const h = await harness([{ text: 'first answer' }, { text: 'resumed answer' }])
    await h.turn('first question')
    await h.service.shutdown()
    // simulate a crash right after the model asked for a tool: the call has no result in the log
    const log = new SessionStore(h.dataDir).openLog(h.sessionId)
    const lastSeq = new SessionStore(h.dataDir).load(h.sessionId).envelopes.at(-1)!.seq
    log.append({
      sessionId: h.sessionId,
      seq: lastSeq + 1,
      time: Date.now(),
      event: { type: 'assistant_message', turnId: 'crashed', text: '', toolCalls: [{ callId: 'c1', name: 'glob', args: { pattern: '*' } }] }
    })
    log.close()
    const again = await createSessionService({
      dataDir: h.dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'scripted', baseUrl: h.server.baseUrl },
      guests: { start: async () => Promise.reject(new CortexError('guest_failed', 'none')) },
      eagerGuest: false
    })
    open.push({ ...h, service: again })
    const info = await again.resumeSession({ sessionId: h.sessionId })
    expect(info.repo).toBe(h.repo)
    const seen: EventEnvelope[] = []
    again.onEvent((e) => seen.push(e))
    await again.submit({ sessionId: h.sessionId, op: { type: 'user_message', text: 'second question' } })
    await again.idle(h.sessionId)
    expect(seen[0]!.seq).toBe(lastSeq + 3) // the log's seq goes on: +1 the crash record, +2 session_resumed
    const body = JSON.stringify(h.server.requests[1]?.body)
    for (const part of ['first question', 'first answer', 'interrupted', 'second question']) expect(body).toContain(part)
    await expect(again.resumeSession({ sessionId: 'no-such-session' })).rejects.toMatchObject({ code: 'session_not_found' })
  })

  it('rejects a repository path that does not exist', async () => {
    const h = await harness([])
    await expect(h.service.openSession({ repo: '/nonexistent/cortex-repo', mode: 'agent' })).rejects.toMatchObject({ code: 'repo_invalid' })
    await expect(h.service.openSession({ repo: 'relative/path', mode: 'agent' })).rejects.toThrow(/absolute/)
  })
})
