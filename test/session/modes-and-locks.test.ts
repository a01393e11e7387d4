// Modes and locks through the real session service, the real turn loop, a real Docker guest and
// the scripted model server: the exact tools of each recorded request per mode; mutating calls a
// model makes anyway in Ask, Plan and Spec leave no file (while the same calls in Agent do, so the
// check can fail); the plan lock with accept_plan / reject_plan; the spec flow requirements →
// design → tasks with accept_spec / reject_spec; and a resumed session keeping its lock.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { Mode } from '../../src/shared/modes'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, sentToolResults, startScriptedModelServer, type RecordedRequest, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'

const ASK = ['read_file', 'glob', 'grep']
// `task` (subagents, read-only: offered in every mode) follows the built-ins (shared/modes.ts offeredTools)
const TOOLS: Record<Mode, string[]> = {
  ask: [...ASK, 'task'],
  plan: [...ASK, 'plan', 'task'],
  spec: [...ASK, 'spec', 'task'],
  agent: [...ASK, 'write_file', 'edit_file', 'bash', 'todo_read', 'todo_write', 'plan', 'task']
}

const PLAN = {
  title: 'Add a greeting',
  summary: 'Write hello.txt, then check it.',
  steps: ['Create hello.txt with a greeting', 'Print hello.txt to check it'],
  mermaid: 'flowchart TD\n  A[Write hello.txt] --> B[Check it]'
}

/** The three mutating calls a confused model (or replayed history) makes: each would create a file. */
const MUTATING = (repo: string): ScriptStep => ({
  toolCalls: [
    { name: 'write_file', args: { path: 'w.txt', content: 'written\n' } },
    { name: 'edit_file', args: { path: 'a.txt', old_string: 'a', new_string: 'edited' } },
    { name: 'bash', args: { command: `python3 -c "open('${repo}/x','w')"` } }
  ]
})

/** Text of every user message in a recorded chat-completions request, in order. */
function userTexts(req: RecordedRequest | undefined): string[] {
  const body = req?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined
  return (body?.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
}

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

describe.skipIf(skipWithoutDocker())('modes and locks over a real guest', () => {
  let events: EventEnvelope[]
  let script: ScriptStep[]
  let server: ScriptedModelServer
  let service: SessionService
  let sessionId: string
  let repo: string
  let dataDir: string

  async function open(mode: Mode): Promise<void> {
    events = []
    script = []
    server = await startScriptedModelServer(script)
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
    dataDir = mkdtempSync(join(tmpdir(), 'cortex-locks-'))
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0 })
    })
    const dir = dataDir
    cleanup.push(async () => {
      await service.shutdown()
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    })
    service.onEvent((e) => events.push(e))
    sessionId = (await service.openSession({ repo, mode, approvalPolicy: 'never' })).id
  }

  /** Submit `op` (a turn-starting one), wait for the turn, and return the events it produced. */
  async function run(op: Parameters<SessionService['submit']>[0]['op']): Promise<SessionEvent[]> {
    const from = events.length
    await service.submit({ sessionId, op })
    await service.idle(sessionId)
    return events.slice(from).map((e) => e.event)
  }
  const say = (text: string) => run({ type: 'user_message', text })
  const lastOf = <T extends SessionEvent['type']>(type: T): Extract<SessionEvent, { type: T }> | undefined =>
    events.map((e) => e.event).filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type).at(-1)

  for (const mode of ['ask', 'plan', 'spec'] as const) {
    it(`${mode}: offers exactly ${TOOLS[mode].join(', ')}; write_file, edit_file and a writing bash are refused and no file appears`, async () => {
      await open(mode)
      script.push(MUTATING(repo), { text: 'done' })
      const evs = await say('change things')
      expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
      expect(server.requests.map((r) => offeredToolNames(r))).toEqual([TOOLS[mode], TOOLS[mode]])
      const results = sentToolResults(server.requests[1]!)
      expect(results.map((r) => r.name)).toEqual(['write_file', 'edit_file', 'bash'])
      for (const r of results) expect(r.output).toMatch(new RegExp(`^Error: tool "${r.name}" is not available in ${mode} mode; it was not run`))
      expect(existsSync(join(repo, 'w.txt'))).toBe(false)
      expect(existsSync(join(repo, 'x'))).toBe(false)
      expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('a\n')
    })
  }

  it('agent: offers the full catalog, and the same three calls do change the repository (the check above can fail)', async () => {
    await open('agent')
    script.push(MUTATING(repo), { text: 'done' })
    await say('change things')
    expect(offeredToolNames(server.requests[0]!)).toEqual(TOOLS.agent)
    expect(sentToolResults(server.requests[1]!).map((r) => r.output.startsWith('Error'))).toEqual([false, false, false])
    expect(readFileSync(join(repo, 'w.txt'), 'utf8')).toBe('written\n')
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('edited\n')
    expect(existsSync(join(repo, 'x'))).toBe(true)
  })

  it('checks a call against the mode in force when it runs: a switch to ask during a step refuses its later write', async () => {
    await open('agent')
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo started; sleep 1.5' } }, { name: 'write_file', args: { path: 'late.txt', content: 'x' } }] }, { text: 'done' })
    await service.submit({ sessionId, op: { type: 'user_message', text: 'go' } })
    // the bash call runs (a call still waiting for the guest would be refused too: mode-switch-pending.test.ts)
    while (!events.some((e) => e.event.type === 'tool_output')) await new Promise((r) => setTimeout(r, 20))
    await service.submit({ sessionId, op: { type: 'set_mode', mode: 'ask' } })
    await service.idle(sessionId)
    const [sleep, write] = sentToolResults(server.requests[1]!)
    expect(sleep).toMatchObject({ name: 'bash' })
    expect(sleep?.output).not.toMatch(/^Error/)
    expect(write?.output).toMatch(/^Error: tool "write_file" is not available in ask mode/)
    expect(offeredToolNames(server.requests[1]!)).toEqual(TOOLS.ask)
    expect(existsSync(join(repo, 'late.txt'))).toBe(false)
  })

  it('plan → lock → accept_plan: Agent, the steps as todos, a turn whose task is the plan, offering the full catalog', async () => {
    await open('plan')
    script.push({ toolCalls: [{ name: 'plan', args: PLAN }] }, { text: 'Plan ready.' })
    await say('plan a greeting')
    expect(lastOf('lock_changed')?.lock).toEqual({ kind: 'plan' })
    expect((await service.listSessions({}))[0]?.mode).toBe('plan')
    // the plan tool's result tells the model the plan now waits for the user
    expect(sentToolResults(server.requests[1]!)[0]?.output).toMatch(/awaits the user's decision/)

    script.push({ toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'hello\n' } }] }, { text: 'Done.' })
    const evs = await run({ type: 'accept_plan' })
    expect(evs.slice(0, 4)).toEqual([
      { type: 'proposal_decided', kind: 'plan', decision: 'accepted' },
      { type: 'lock_changed', lock: null },
      { type: 'mode_changed', mode: 'agent' },
      { type: 'todos_updated', todos: PLAN.steps.map((content) => ({ content, status: 'pending' })) }
    ])
    expect(evs.find((e) => e.type === 'turn_started')).toMatchObject({ mode: 'agent' })
    const accepted = server.requests[2]!
    expect(offeredToolNames(accepted)).toEqual(TOOLS.agent)
    const task = userTexts(accepted).at(-1) ?? ''
    expect(task).toContain('The plan is accepted')
    for (const step of PLAN.steps) expect(task).toContain(step)
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello\n')
    expect((await service.listSessions({}))[0]?.mode).toBe('agent')
  })

  it('reject_plan keeps Plan mode and sends the feedback as the next user message', async () => {
    await open('plan')
    script.push({ toolCalls: [{ name: 'plan', args: PLAN }] }, { text: 'Plan ready.' })
    await say('plan a greeting')
    script.push({ text: 'Revised.' })
    const evs = await run({ type: 'reject_plan', feedback: 'Use greeting.md instead' })
    expect(evs.slice(0, 2)).toEqual([
      { type: 'proposal_decided', kind: 'plan', decision: 'rejected', feedback: 'Use greeting.md instead' },
      { type: 'lock_changed', lock: null }
    ])
    expect(evs.some((e) => e.type === 'mode_changed')).toBe(false)
    const next = server.requests[2]!
    expect(offeredToolNames(next)).toEqual(TOOLS.plan)
    expect(userTexts(next).at(-1)).toMatch(/Feedback on the plan "Add a greeting"[\s\S]*Use greeting\.md instead$/)
    // nothing awaits a decision any more
    await expect(service.submit({ sessionId, op: { type: 'accept_plan' } })).rejects.toMatchObject({ code: 'invalid_input' })
  })

  it('spec: requirements → design (rejected, redrafted) → tasks, each accepted; then Agent with the tasks as todos', async () => {
    await open('spec')
    const doc = (stage: string, extra: object = {}) => ({ toolCalls: [{ name: 'spec', args: { stage, title: `The ${stage}`, markdown: `# ${stage}\n\nbody of ${stage}`, ...extra } }] })
    // out of order: design before requirements is refused, then requirements
    script.push(doc('design'), doc('requirements'), { text: 'Requirements ready.' })
    await say('spec a greeting')
    const [early, reqs] = sentToolResults(server.requests[2]!)
    expect(early?.output).toMatch(/next spec document is "requirements"/)
    expect(reqs?.output).toMatch(/requirements document "The requirements" published/)
    expect(lastOf('lock_changed')?.lock).toEqual({ kind: 'spec', stage: 'requirements' })
    expect(lastOf('spec_updated')?.spec).toMatchObject({ stage: 'requirements', markdown: '# requirements\n\nbody of requirements' })

    script.push(doc('design'), { text: 'Design ready.' })
    await run({ type: 'accept_spec' })
    expect(userTexts(server.requests[3]).at(-1)).toMatch(/requirements document is accepted\. Now write the design document/)
    expect(offeredToolNames(server.requests[3]!)).toEqual(TOOLS.spec)
    expect(lastOf('lock_changed')?.lock).toEqual({ kind: 'spec', stage: 'design' })

    script.push(doc('design', { markdown: '# design v2' }), { text: 'Design revised.' })
    await run({ type: 'reject_spec', feedback: 'Name the file greeting.md' })
    expect(userTexts(server.requests[5]).at(-1)).toMatch(/Feedback on the spec design document[\s\S]*Name the file greeting\.md$/)
    expect(lastOf('spec_updated')?.spec.markdown).toBe('# design v2')

    script.push(doc('tasks', { tasks: ['Write greeting.md', 'Check greeting.md'] }), { text: 'Tasks ready.' })
    await run({ type: 'accept_spec' })
    expect(lastOf('lock_changed')?.lock).toEqual({ kind: 'spec', stage: 'tasks' })

    script.push({ text: 'Implementing.' })
    const evs = await run({ type: 'accept_spec' })
    expect(evs.find((e) => e.type === 'mode_changed')).toEqual({ type: 'mode_changed', mode: 'agent' })
    expect(lastOf('todos_updated')?.todos).toEqual([
      { content: 'Write greeting.md', status: 'pending' },
      { content: 'Check greeting.md', status: 'pending' }
    ])
    const last = server.requests.at(-1)!
    expect(offeredToolNames(last)).toEqual(TOOLS.agent)
    const task = userTexts(last).at(-1) ?? ''
    expect(task).toMatch(/The spec is accepted/)
    expect(task).toContain('body of requirements')
    expect(task).toContain('# design v2')
    expect(task).toContain('body of tasks')
    // the spec lives with the session (its log in the data folder), not in the repository
    const log = readFileSync(join(dataDir, 'sessions', sessionId, 'events.jsonl'), 'utf8')
    expect(log).toContain('# design v2')
    expect(existsSync(join(repo, 'requirements.md'))).toBe(false)
  })

  it('a resumed session keeps the plan lock: accept_plan works in a new service', async () => {
    await open('plan')
    script.push({ toolCalls: [{ name: 'plan', args: PLAN }] }, { text: 'Plan ready.' })
    await say('plan a greeting')
    await service.shutdown()
    const resumed = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0 })
    })
    cleanup.unshift(() => resumed.shutdown()) // before the data folder goes
    expect((await resumed.resumeSession({ sessionId })).mode).toBe('plan')
    script.push({ text: 'On it.' })
    await resumed.submit({ sessionId, op: { type: 'accept_plan' } })
    await resumed.idle(sessionId)
    expect((await resumed.listSessions({}))[0]?.mode).toBe('agent')
    expect(offeredToolNames(server.requests.at(-1)!)).toEqual(TOOLS.agent)
  })
})
