// The goal through the built CLI, a real guest and the scripted model server: `cortex run --goal`
// with --goal-turns 3 and a check that never passes ends after exactly 3 turns, budget_spent, exit 3;
// a check that passes once the model wrote done.txt in turn 2 ends met after turn 2, exit 0; a goal
// a restart (kill -9) left active comes back paused and runs no turn until resume_goal; a goal run
// with no PROMPT is listed by `cortex sessions` under the goal's text.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { offeredToolNames, sentToolResults, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptStep } from '../support/scripted-model-server'

const ofType = <T extends SessionEvent['type']>(events: EventEnvelope[], type: T) =>
  events.map((e) => e.event).filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type)

/** The last user message of a recorded chat-completions request. */
function lastUserText(req: RecordedRequest): string {
  const body = req.body as { messages: Array<{ role: string; content: unknown }> }
  const users = body.messages.filter((m) => m.role === 'user')
  const c = users[users.length - 1]?.content
  return typeof c === 'string' ? c : JSON.stringify(c)
}

/** Remove the containers of `sessionId` a kill -9'd CLI left. */
function removeGuests(sessionId: string): void {
  const ids = execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.session=${sessionId}`], { encoding: 'utf8' }).trim()
  for (const id of ids ? ids.split('\n') : []) {
    try {
      execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' })
    } catch {
      // gone already
    }
  }
}

describe.skipIf(skipWithoutDocker())('cortex run --goal', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-goal-home-'))
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
  const sessions: string[] = []
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })
  afterAll(() => {
    for (const id of sessions) removeGuests(id)
    rmSync(home, { recursive: true, force: true })
  })
  const model = (): string[] => ['--provider', 'openai-compatible', '--base-url', server!.baseUrl, '--model', 'scripted']

  it('--goal-turns 3 and a check that never passes: exactly 3 turns, budget_spent, exit 3', async () => {
    const turn: ScriptStep[] = [{ text: 'Done, I think.', toolCalls: [{ name: 'goal_done', args: { evidence: 'it looks finished' } }] }, { text: 'Not yet then.' }]
    // one step more than 3 turns need: a 4th turn would consume it
    server = await startScriptedModelServer([...turn, ...turn, ...turn, { text: 'a fourth turn' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const run = await runCli(['run', '--repo', repo, ...model(), '--json', '--goal', 'finish the work', '--goal-turns', '3', '--goal-check', 'false'], { env })
    sessions.push(run.events[0]!.sessionId)
    expect(run.stderr).not.toMatch(/error/)
    expect(run.code).toBe(3)
    expect(ofType(run.events, 'turn_started')).toHaveLength(3)
    expect(server.requests).toHaveLength(6)
    const goals = ofType(run.events, 'goal_updated')
    expect(goals.map((g) => `${g.state}:${g.turnsUsed}`)).toEqual(['active:0', 'active:1', 'active:2', 'budget_spent:3'])
    expect(goals[3]).toMatchObject({ turnBudget: 3, goal: { text: 'finish the work', check: 'false' } })
    expect(goals[3]!.tokensUsed).toBeGreaterThan(0)
    // goal_done is offered during the goal; the failing check went back to the model each time
    expect(offeredToolNames(server.requests[0]!)).toContain('goal_done')
    for (const i of [1, 3, 5]) {
      const results = sentToolResults(server.requests[i]!)
      expect(results).toHaveLength((i + 1) / 2)
      expect(results.at(-1)!.output).toMatch(/NOT met.*`false` failed[\s\S]*exit_code: 1/)
    }
    // each turn's user message says what the goal is and the progress
    expect(lastUserText(server.requests[0]!)).toMatch(/^Goal: finish the work[\s\S]*turn 1 of 3/)
    expect(lastUserText(server.requests[4]!)).toMatch(/Continue working toward the goal: finish the work[\s\S]*turn 3 of 3/)
  }, 240_000)

  it('a goal run with no PROMPT is titled with the goal in `cortex sessions`, not the harness goal message', async () => {
    server = await startScriptedModelServer([{ text: 'Working on it.' }, { text: 'a second turn' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const run = await runCli(['run', '--repo', repo, ...model(), '--json', '--goal', 'tidy   the\nreadme', '--goal-turns', '1'], { env })
    const id = run.events[0]!.sessionId
    sessions.push(id)
    expect(run.code).toBe(3)
    const list = await runCli(['sessions', '--repo', repo], { env })
    expect(list.code).toBe(0)
    const row = list.stdout.split('\n').find((l) => l.includes(id))
    expect(row).toMatch(/tidy the readme$/)
    expect(list.stdout).not.toMatch(/Goal:|Progress: turn/)
  }, 240_000)

  it('a check that passes after the model writes done.txt in turn 2: met after turn 2, exit 0', async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'goal_done', args: { evidence: 'ready' } }] },
      { text: 'The check failed; I will create the file next turn.' },
      { toolCalls: [{ name: 'write_file', args: { path: 'done.txt', content: 'done\n' } }] },
      { toolCalls: [{ name: 'goal_done', args: { evidence: 'done.txt written' } }] },
      { text: 'Goal met.' },
      { text: 'a third turn' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const run = await runCli(['run', '--repo', repo, ...model(), '--goal', 'create done.txt', '--goal-turns', '5', '--goal-check', 'test -f done.txt'], { env })
    expect(run.code).toBe(0)
    expect(server.requests).toHaveLength(5)
    expect(sentToolResults(server.requests[4]!).at(-1)!.output).toMatch(/passed: the goal is met/)
    expect(run.stderr).toMatch(/goal met: done\.txt written/)
    const id = /session ([\w-]+) · continue it with: cortex run --resume \1/.exec(run.stderr)?.[1]
    expect(id).toBeTruthy()
    sessions.push(id!)
  }, 240_000)

  it('a check the model rewrote to `exit 0` does not meet the goal: needs_confirmation (exit 3) until the user confirms', async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: 'write_file', args: { path: 'check.sh', content: 'exit 0\n' } }] },
      { toolCalls: [{ name: 'goal_done', args: { evidence: 'the check passes now' } }] },
      { text: 'I changed the check.' },
      { text: 'a second turn' }
    ])
    const repo = await makeTestRepo({ 'check.sh': 'echo not yet; exit 1\n', 'a.txt': 'x\n' })
    const run = await runCli(['run', '--repo', repo, ...model(), '--json', '--goal', 'make the check pass', '--goal-turns', '3', '--goal-check', 'bash check.sh'], { env })
    const sessionId = run.events[0]!.sessionId
    sessions.push(sessionId)
    expect(run.code).toBe(3)
    expect(server.requests).toHaveLength(3)
    const goals = ofType(run.events, 'goal_updated')
    // the fingerprint recorded when the goal was set names the script the check runs
    expect(Object.keys(goals[0]!.goal.checkFiles ?? {})).toEqual(['check.sh'])
    expect(goals.some((g) => g.state === 'met')).toBe(false)
    expect(goals.at(-1)).toMatchObject({ state: 'needs_confirmation', turnsUsed: 1, reason: expect.stringMatching(/the check passed, but check\.sh changed since the goal was set[\s\S]*confirm/) })
    expect(sentToolResults(server.requests[2]!).at(-1)!.output).toMatch(/passed, but it names files that changed since the goal was set \(check\.sh\).*NOT met until the user confirms/)

    // the user confirms through the operation (the TUI sends it for /goal confirm); no model turn runs
    await server.close()
    server = await startScriptedModelServer([])
    const resumed = startStreamCli(['run', '--resume', sessionId, '--input', 'stream-json', '--json'], { env })
    await resumed.waitFor('session_resumed', undefined, { timeoutMs: 60_000 })
    resumed.send({ type: 'confirm_goal' })
    const met = await resumed.waitFor('goal_updated', (g) => g.state === 'met', { timeoutMs: 60_000 })
    expect(met.reason).toMatch(/^confirmed by the user/)
    resumed.end()
    expect((await resumed.exit(60_000)).code).toBe(0)
    expect(server.requests).toHaveLength(0)
  }, 300_000)

  it('the same blocker on 3 consecutive turns ends blocked (exit 3); a token budget counts the usage events', async () => {
    const blockedTurn: ScriptStep[] = [{ toolCalls: [{ name: 'goal_done', args: { blocked: 'The network is off.' } }] }, { text: 'Blocked.' }]
    server = await startScriptedModelServer([...blockedTurn, ...blockedTurn, ...blockedTurn, { text: 'a fourth turn' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const run = await runCli(['run', '--repo', repo, ...model(), '--json', '--goal', 'fetch the data', '--goal-turns', '10'], { env })
    sessions.push(run.events[0]!.sessionId)
    expect(run.code).toBe(3)
    expect(server.requests).toHaveLength(6)
    expect(ofType(run.events, 'goal_updated').at(-1)).toMatchObject({ state: 'blocked', turnsUsed: 3, reason: 'The network is off.' })
    expect(sentToolResults(server.requests[3]!).at(-1)!.output).toMatch(/Blocker recorded \(2 of 3/)

    // the scripted server reports 10 input + 5 output tokens per request: 15, 30, 45 >= 40 after turn 3
    await server.close()
    server = await startScriptedModelServer([{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }])
    const tokens = await runCli(['run', '--repo', repo, ...model(), '--json', '--goal', 'keep going', '--goal-tokens', '40'], { env })
    sessions.push(tokens.events[0]!.sessionId)
    expect(tokens.code).toBe(3)
    expect(server.requests).toHaveLength(3)
    expect(ofType(tokens.events, 'goal_updated').at(-1)).toMatchObject({ state: 'budget_spent', turnsUsed: 3, tokensUsed: 45, tokenBudget: 40, turnBudget: 20 })
  }, 240_000)

  it('Ctrl-C during a goal turn stops it, pauses the goal and exits 130', async () => {
    server = await startScriptedModelServer([{ text: 'Working on it', hangAfterText: true }, { text: 'a second turn' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    let sent = false
    const run = await runCli(['run', '--repo', repo, ...model(), '--json', '--goal', 'long task', '--goal-turns', '4'], {
      env,
      onStdout: (chunk, child) => {
        if (!sent && chunk.includes('"text_delta"')) {
          sent = true
          child.kill('SIGINT')
        }
      }
    })
    sessions.push(run.events[0]!.sessionId)
    expect(run.code).toBe(130)
    expect(server.requests).toHaveLength(1)
    expect(ofType(run.events, 'goal_updated').map((g) => `${g.state}:${g.turnsUsed}`)).toEqual(['active:0', 'paused:0', 'paused:1'])
    expect(ofType(run.events, 'goal_updated')[1]!.reason).toBe('stopped by the user')
  }, 240_000)

  it('a goal a restart left active comes back paused and runs no turn until resume_goal', async () => {
    server = await startScriptedModelServer([{ text: 'Working on it', hangAfterText: true }, { toolCalls: [{ name: 'goal_done', args: { evidence: 'finished after resume' } }] }, { text: 'Met.' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const first = startStreamCli(['run', '--repo', repo, ...model(), '--json', '--input', 'stream-json', '--goal', 'long task', '--goal-turns', '4'], { env })
    await first.waitFor('text_delta', undefined, { timeoutMs: 120_000 })
    const sessionId = first.events[0]!.sessionId
    sessions.push(sessionId)
    first.child.kill('SIGKILL')
    await first.exit()
    removeGuests(sessionId)
    expect(server.requests).toHaveLength(1)

    const resumed = startStreamCli(['run', '--resume', sessionId, '--json', '--input', 'stream-json'], { env })
    const paused = await resumed.waitFor('goal_updated', (g) => g.state === 'paused', { timeoutMs: 60_000 })
    expect(paused).toMatchObject({ goal: { text: 'long task' }, turnBudget: 4, reason: expect.stringMatching(/resumed/) })
    // nothing runs by itself: the session is idle with its goal paused. A turn would start at once, as
    // resume emits, so it would come before the answer to an operation sent after `paused`
    resumed.send({ type: 'set_approval_policy', policy: 'commands' })
    await resumed.waitFor('approval_policy_changed', undefined, { timeoutMs: 30_000 })
    expect(ofType(resumed.events, 'turn_started')).toHaveLength(0)
    expect(server.requests).toHaveLength(1)
    resumed.send({ type: 'resume_goal' })
    const met = await resumed.waitFor('goal_updated', (g) => g.state === 'met', { timeoutMs: 120_000 })
    expect(met).toMatchObject({ turnsUsed: 1, reason: 'finished after resume' })
    expect(lastUserText(server.requests[1]!)).toMatch(/Continue working toward the goal: long task/)
    resumed.end()
    const run = await resumed.exit(120_000)
    expect(run.code).toBe(0)
    expect(ofType(run.events, 'turn_started')).toHaveLength(1)
  }, 300_000)
})
