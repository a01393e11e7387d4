// Subagents through the product (issue 21 item 5, ADR 0037): the built `cortex run --input
// stream-json`, a real guest and a scripted model server that answers each request by the
// conversation it continues (its first user message). A parent step starts two explore subagents:
// they run at the same time, each with a fresh history of its own, cannot write, and their reports
// reach the parent's next request; their usage sums into the turn. Stop during them ends both
// within 2 s with every call answered, and the session resumes with a valid history.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import {
  offeredToolNames, sentToolCalls, sentToolResults, startScriptedModelServer, type RecordedRequest, type ScriptStep, type ScriptedModelServer
} from '../support/scripted-model-server'
import { waitUntil } from '../support/wait-until'

const PARENT = 'Look into the repository with two explorers'
const TASK_A = 'SUBAGENT-A: what does alpha.txt say?'
const TASK_B = 'SUBAGENT-B: what does beta.txt say?'
const TASK_G = 'SUBAGENT-G: write the marker file'

type Message = { role: string; content: unknown }
const messages = (r: RecordedRequest): Message[] => (r.body as { messages: Message[] }).messages
const text = (m: Message): string => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))
/** The conversation a request continues: its first user message. */
const firstUser = (r: RecordedRequest): string => text(messages(r).find((m) => m.role === 'user') ?? { role: 'user', content: '' })
/** What a parent request holds besides its system prompt: its user messages and the names of the calls it replays (none of a child's). */
const parentShape = (r: RecordedRequest) => ({
  users: messages(r).filter((m) => m.role === 'user').map(text),
  calls: sentToolCalls(r).map((c) => c.name)
})
const ofType = <T extends SessionEvent['type']>(events: EventEnvelope[], type: T) =>
  events.map((e) => e.event).filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type)

/**
 * The parent asks for two explore subagents, then ends with `parentEnd`; each child first tries to
 * write a file (refused: explore has Ask's tools), then reports. `childFirst` replaces the children's
 * first step (a hang, for Stop).
 */
function route(opts: { childFirst?: ScriptStep; parentEnd?: string } = {}): (r: RecordedRequest) => ScriptStep {
  return (r) => {
    const who = firstUser(r)
    const answered = sentToolResults(r).length > 0
    if (who === TASK_A || who === TASK_B) {
      const tag = who === TASK_A ? 'A' : 'B'
      if (!answered) return opts.childFirst ?? { firstByteDelayMs: 800, toolCalls: [{ name: 'write_file', args: { path: `from-${tag}.txt`, content: 'x' } }] }
      return { text: `REPORT-${tag}: the file says ${tag === 'A' ? 'alpha' : 'beta'}`, usage: { input: 100, cached: 0, output: 7 } }
    }
    if (!answered) {
      return {
        text: 'Starting two explorers.',
        toolCalls: [
          { name: 'task', args: { kind: 'explore', description: 'read alpha', prompt: TASK_A } },
          { name: 'task', args: { kind: 'explore', description: 'read beta', prompt: TASK_B } }
        ]
      }
    }
    return { text: opts.parentEnd ?? 'Both explorers reported.' }
  }
}

describe.skipIf(skipWithoutDocker())('cortex run: subagents', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-subagents-home-'))
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))

  const start = (repo: string, baseUrl: string) =>
    startStreamCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', baseUrl, '--model', 'm', '--json', '--input', 'stream-json'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })

  it('two explore subagents in one step run together with their own histories, cannot write, and report to the parent', async () => {
    server = await startScriptedModelServer([], { route: route() })
    const repo = await makeTestRepo({ 'alpha.txt': 'alpha\n', 'beta.txt': 'beta\n' })
    const cli = start(repo, server.baseUrl)
    cli.send({ type: 'user_message', text: PARENT })
    const ended = await cli.waitFor('turn_ended', undefined, { timeoutMs: 180_000 })
    cli.end()
    expect((await cli.exit()).code).toBe(0)
    expect(ended.reason).toBe('completed')

    const parent = server.requests.filter((r) => firstUser(r) === PARENT)
    const childA = server.requests.filter((r) => firstUser(r) === TASK_A)
    const childB = server.requests.filter((r) => firstUser(r) === TASK_B)
    expect([parent.length, childA.length, childB.length]).toEqual([2, 2, 2])
    // separate histories: each child's first request holds only its task prompt (after the system prompt)
    for (const [req, task] of [[childA[0]!, TASK_A], [childB[0]!, TASK_B]] as const) {
      expect(messages(req).filter((m) => m.role !== 'system').map((m) => [m.role, text(m)])).toEqual([['user', task]])
      expect(JSON.stringify(req.body)).not.toContain(PARENT)
      // explore: Ask's tools only, whatever the parent's mode (agent here)
      expect(offeredToolNames(req).sort()).toEqual(['glob', 'grep', 'read_file'])
    }
    // the parent is offered task; its second request carries both reports, and no child message
    expect(offeredToolNames(parent[0]!)).toContain('task')
    const reports = sentToolResults(parent[1]!).map((r) => r.output)
    expect(reports).toEqual([expect.stringContaining('REPORT-A: the file says alpha'), expect.stringContaining('REPORT-B: the file says beta')])
    expect(parentShape(parent[1]!)).toEqual({ users: [PARENT], calls: ['task', 'task'] })
    // in parallel: B's first request arrived before A's first answer was complete (each took ≥ 0.8 s)
    expect(childB[0]!.receivedAt).toBeLessThan(childA[0]!.respondedAt!)
    expect(childA[0]!.receivedAt).toBeLessThan(childB[0]!.respondedAt!)

    // each child's write_file was refused and nothing was written
    const refusals = sentToolResults(childA[1]!).concat(sentToolResults(childB[1]!))
    expect(refusals).toHaveLength(2)
    for (const r of refusals) expect(r.output).toBe('Error: tool "write_file" is not available to this agent; it was not run. Tools available now: read_file, glob, grep.')
    expect(existsSync(join(repo, 'from-A.txt')) || existsSync(join(repo, 'from-B.txt'))).toBe(false)

    // the child events are nested under their task calls in the log and in --json
    const tasks = ofType(cli.events, 'tool_call_started').filter((e) => e.name === 'task' && !e.parentCallId)
    expect(tasks).toHaveLength(2)
    const nested = cli.events.map((e) => e.event).filter((e) => 'parentCallId' in e && e.parentCallId)
    expect(new Set(nested.map((e) => (e as { parentCallId: string }).parentCallId))).toEqual(new Set(tasks.map((t) => t.callId)))
    expect(ofType(cli.events, 'user_message').filter((e) => e.parentCallId).map((e) => e.text).sort()).toEqual([TASK_A, TASK_B])
    // usage: the turn's totals count every request, the children's included
    const usage = ofType(cli.events, 'usage')
    expect(usage).toHaveLength(6)
    expect(usage.filter((u) => u.parentCallId)).toHaveLength(4)
    expect(ended.usage?.requests).toBe(6)
    expect(ended.usage?.inputTokens).toBe(usage.reduce((n, u) => n + u.inputTokens, 0))
  }, 240_000)

  it('cortex run prints each child call under its task row, not the child\'s text', async () => {
    server = await startScriptedModelServer([], { route: route() })
    const repo = await makeTestRepo({ 'alpha.txt': 'alpha\n', 'beta.txt': 'beta\n' })
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', PARENT], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/⏺ task\(kind: "explore", description: "read alpha"/)
    expect(run.stdout).toContain('  ↳ read alpha · write_file(path: "from-A.txt")')
    expect(run.stdout).toContain('  ↳ read beta · write_file(path: "from-B.txt")')
    expect(run.stdout).toMatch(/ {4}⎿ Error: tool "write_file"/)
    expect(run.stdout).toContain('Both explorers reported.')
  }, 240_000)

  it('a general subagent in Ask mode gets only Ask\'s tools', async () => {
    server = await startScriptedModelServer([], { route: generalRoute({ toolCalls: [{ name: 'bash', args: { command: 'touch marker' } }] }) })
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const run = await runCli(['run', '--repo', repo, '--mode', 'ask', '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json', 'go'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    expect(run.code).toBe(0)
    const child = server.requests.filter((r) => firstUser(r) === TASK_G)
    // Ask's tools only; not even task (read-only, offered in Ask): a child starts no children at the default depth
    expect(offeredToolNames(child[0]!).sort()).toEqual(['glob', 'grep', 'read_file'])
    expect(sentToolResults(child[1]!)[0]!.output).toMatch(/^Error: tool "bash" is not available in ask mode/)
    expect(existsSync(join(repo, 'marker'))).toBe(false)
  }, 240_000)

  it('a general subagent\'s command waits for the user\'s approval through the parent\'s gate, and the turn\'s checkpoint has its write', async () => {
    server = await startScriptedModelServer([], { route: generalRoute({ toolCalls: [{ name: 'bash', args: { command: 'echo hi > marker' } }] }) })
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const cli = startStreamCli(['run', '--repo', repo, '--ask', 'commands', '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json', '--input', 'stream-json'], {
      env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    })
    cli.send({ type: 'user_message', text: 'go' })
    const asked = await cli.waitFor('approval_requested', undefined, { timeoutMs: 120_000 })
    expect(asked.tool).toBe('bash')
    const childCall = ofType(cli.events, 'tool_call_started').find((e) => e.callId === asked.callId)!
    expect(childCall.parentCallId).toBe(ofType(cli.events, 'tool_call_started').find((e) => e.name === 'task')!.callId)
    cli.send({ type: 'approval_decision', requestId: asked.requestId, decision: 'allow_once' })
    const ended = await cli.waitFor('turn_ended', undefined, { timeoutMs: 120_000 })
    cli.end()
    expect((await cli.exit()).code).toBe(0)
    expect(ended.reason).toBe('completed')
    expect(existsSync(join(repo, 'marker'))).toBe(true)
    // the turn's checkpoint covers the child's write
    expect(ofType(cli.events, 'turn_changes').flatMap((e) => e.files.map((f) => f.path))).toEqual(['marker'])
    expect(sentToolResults(server.requests.filter((r) => firstUser(r) !== TASK_G).at(-1)!)[0]!.output).toBe('REPORT-G: done')
  }, 240_000)

  it('Stop during two subagents ends both within 2 s with every call answered, and the session resumes', async () => {
    server = await startScriptedModelServer([], { route: route({ childFirst: { text: 'Looking', hangAfterText: true }, parentEnd: 'resumed fine' }) })
    const repo = await makeTestRepo({ 'alpha.txt': 'alpha\n', 'beta.txt': 'beta\n' })
    const cli = start(repo, server.baseUrl)
    cli.send({ type: 'user_message', text: PARENT })
    // the guest is up (its start is not what this measures) and both children's requests hang mid-stream
    await cli.waitFor('guest_status', (e) => e.state === 'ready', { timeoutMs: 120_000 })
    await waitFor(() => server!.requests.filter((r) => r.hanging && (firstUser(r) === TASK_A || firstUser(r) === TASK_B)).length === 2, 120_000)
    const stoppedAt = Date.now()
    cli.send({ type: 'stop' })
    const ended = await cli.waitFor('turn_ended', undefined, { timeoutMs: 20_000 })
    const tookMs = Date.now() - stoppedAt
    cli.end()
    expect((await cli.exit()).code).toBe(0)
    expect(ended.reason).toBe('stopped')
    expect(tookMs).toBeLessThan(2000)
    // each task call answered once, as interrupted; each child's own history is closed too
    const tasks = ofType(cli.events, 'tool_call_started').filter((e) => e.name === 'task' && !e.parentCallId)
    const finished = ofType(cli.events, 'tool_call_finished')
    for (const t of tasks) {
      const results = finished.filter((f) => f.callId === t.callId && !f.parentCallId)
      expect(results).toHaveLength(1)
      expect(results[0]!.result).toMatch(/interrupted/)
    }
    for (const r of server.requests.filter((q) => firstUser(q) !== PARENT)) expect(r.closedByClient).toBe(true)

    // resume: the parent's history pairs both task calls with their results and holds nothing of the children
    const sessionId = cli.events[0]!.sessionId
    const before = server.requests.length
    const resumed = await runCli(['run', '--resume', sessionId, '--json', 'go on'], { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } })
    expect(resumed.stderr).not.toMatch(/error/i)
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('resumed fine')
    const req = server.requests[before]!
    expect(sentToolResults(req).map((r) => r.callId).sort()).toEqual(tasks.map((t) => t.callId).sort())
    expect(parentShape(req)).toEqual({ users: [PARENT, 'go on'], calls: ['task', 'task'] })
  }, 240_000)
})

/** A parent that starts one `general` subagent whose first step is `childFirst`, then reports `REPORT-G`. */
function generalRoute(childFirst: ScriptStep): (r: RecordedRequest) => ScriptStep {
  return (r) => {
    const answered = sentToolResults(r).length > 0
    if (firstUser(r) === TASK_G) return answered ? { text: 'REPORT-G: done' } : childFirst
    return answered ? { text: 'The general agent reported.' } : { toolCalls: [{ name: 'task', args: { kind: 'general', description: 'do it', prompt: TASK_G } }] }
  }
}

/** Resolve once `cond()` holds (checked every 50 ms); reject after `timeoutMs` (a hang guard). */
const waitFor = (cond: () => boolean, timeoutMs: number): Promise<void> => waitUntil(cond, timeoutMs, 'the condition', 50)
