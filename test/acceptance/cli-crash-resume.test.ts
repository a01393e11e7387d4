// Sessions that survive crashes, through the built CLI, a real guest and the scripted model server:
// kill -9 during a `sleep` tool call, then `cortex run --resume ID PROMPT` with no provider flags
// continues with a valid history (the interrupted call has exactly one result); kill -9 while the
// model streams is reported on resume as a turn cut off and closed; a log with a NUL
// block in the middle loads its later records and the user is told how many were skipped.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { startStreamCli } from '../support/cli-stream'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { sentToolCalls, sentToolResults, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from '../support/scripted-model-server'

/** No model settings from the environment: only what the session stored can make a resume work. */
const NO_MODEL_ENV = { CORTEX_PROVIDER: '', CORTEX_MODEL: '', CORTEX_BASE_URL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', CORTEX_WARM_POOL: '0' }

/** Remove the containers of `sessionId` a kill -9'd CLI left (its watchdog may be removing them already). */
function removeGuests(sessionId: string): void {
  const ids = execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.session=${sessionId}`], { encoding: 'utf8' }).trim()
  for (const id of ids ? ids.split('\n') : []) {
    try {
      execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' })
    } catch {
      // gone or going already
    }
  }
}

/** The user messages of a recorded chat-completions request, in order. */
function userTexts(req: RecordedRequest): string[] {
  const body = req.body as { messages: Array<{ role: string; content: unknown }> }
  return body.messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
}

const ofType = <T extends SessionEvent['type']>(events: EventEnvelope[], type: T) =>
  events.map((e) => e.event).filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type)

describe.skipIf(skipWithoutDocker())('sessions that survive crashes', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-crash-home-'))
  const sessions: string[] = []
  let server: ScriptedModelServer | undefined
  afterAll(async () => {
    for (const id of sessions) removeGuests(id)
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('kill -9 during a sleep, then --resume without provider flags continues with the call closed exactly once', async () => {
    server = await startScriptedModelServer([
      { text: 'Running it.', toolCalls: [{ name: 'bash', args: { command: 'echo started; sleep 30' } }] },
      { text: 'The slow command was interrupted; carrying on.' }
    ])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const first = startStreamCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'run the slow thing'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    await first.waitFor('tool_output', (e) => e.chunk.includes('started'), { timeoutMs: 120_000 })
    const sessionId = first.events[0]!.sessionId
    sessions.push(sessionId)
    const callId = ofType(first.events, 'tool_call_started')[0]!.callId
    first.child.kill('SIGKILL')
    expect((await first.exit()).signal).toBe('SIGKILL')
    removeGuests(sessionId)

    const meta = JSON.parse(readFileSync(join(home, 'sessions', sessionId, 'meta.json'), 'utf8')) as Record<string, unknown>
    expect(meta).toMatchObject({ provider: 'openai-compatible', model: 'scripted', baseUrl: server.baseUrl })
    expect(JSON.stringify(meta)).not.toMatch(/key/i)

    const resumed = await runCli(['run', '--resume', sessionId, '--json', 'go on'], { env: { CORTEX_HOME: home, ...NO_MODEL_ENV } })
    expect(resumed.stderr).not.toMatch(/error/)
    expect(resumed.code).toBe(0)
    expect(ofType(resumed.events, 'session_resumed')).toEqual([
      expect.objectContaining({ skipped: 0, interruptedCalls: 1, provider: 'openai-compatible', model: 'scripted', baseUrl: server.baseUrl })
    ])
    expect(resumed.stdout).toContain('carrying on')
    expect(resumed.stderr).toContain(`cortex run --resume ${sessionId}`)

    // the recorded request: the bash call once, paired with exactly one result saying it was interrupted
    expect(server.requests).toHaveLength(2)
    const req = server.requests[1]!
    expect(sentToolCalls(req).filter((c) => c.callId === callId)).toHaveLength(1)
    const results = sentToolResults(req).filter((r) => r.callId === callId)
    expect(results).toHaveLength(1)
    expect(results[0]!.output).toMatch(/interrupted/)
    expect(userTexts(req)).toEqual(['run the slow thing', 'go on'])

    // the log agrees: every call has one result, and every turn ended
    const log = readFileSync(join(home, 'sessions', sessionId, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as EventEnvelope)
    expect(ofType(log, 'tool_call_finished').filter((e) => e.callId === callId)).toHaveLength(1)
    expect(ofType(log, 'turn_ended').map((e) => e.reason)).toEqual(['stopped', 'completed'])

    // `cortex sessions` names the connection a resume reuses
    const list = await runCli(['sessions'], { env: { CORTEX_HOME: home } })
    expect(list.stdout).toMatch(new RegExp(`^${sessionId} .* agent  openai-compatible:scripted  ${repo}  run the slow thing$`, 'm'))
  }, 240_000)

  it('kill -9 while the model streams, then --resume says the earlier turn was cut off and closed (no bare "stopped")', async () => {
    server = await startScriptedModelServer([{ text: 'Half an answer', hangAfterText: true }, { text: 'Carrying on from there.' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const first = startStreamCli(
      ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'answer slowly'],
      { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } }
    )
    await first.waitFor('text_delta', (e) => e.text.includes('answer'), { timeoutMs: 120_000 })
    const sessionId = first.events[0]!.sessionId
    sessions.push(sessionId)
    first.child.kill('SIGKILL')
    expect((await first.exit()).signal).toBe('SIGKILL')
    removeGuests(sessionId)

    const resumed = await runCli(['run', '--resume', sessionId, 'go on'], { env: { CORTEX_HOME: home, ...NO_MODEL_ENV } })
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stdout).toContain('Carrying on from there.')
    expect(resumed.stderr).toMatch(/warning: resumed with openai-compatible · scripted · the earlier turn, cut off by a crash, was closed/)
    expect(resumed.stderr).not.toMatch(/^stopped$/m)
    await server.close()
    server = undefined
  }, 240_000)

  it('a NUL block in the middle of the log: later records load and the skipped count is reported (event and CLI line)', async () => {
    await server?.close()
    server = await startScriptedModelServer([{ text: 'first' }, { text: 'second' }, { text: 'third' }, { text: 'fourth' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const model = ['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted']
    const cli = startStreamCli(['run', '--repo', repo, ...model, '--json', '--input', 'stream-json', 'one'], { env: { CORTEX_HOME: home, CORTEX_WARM_POOL: '0' } })
    await cli.waitFor('turn_ended')
    cli.send({ type: 'user_message', text: 'two' })
    cli.end()
    const run = await cli.exit(120_000)
    expect(run.code).toBe(0)
    const sessionId = run.events[0]!.sessionId
    sessions.push(sessionId)

    // damage: a torn record and a 4 KiB zero-filled block run into the second user message's line, and a NUL-only line
    const file = join(home, 'sessions', sessionId, 'events.jsonl')
    const lines = readFileSync(file, 'utf8').split('\n')
    const at = lines.findIndex((l) => l.includes('"user_message"') && l.includes('"two"'))
    expect(at).toBeGreaterThan(0)
    lines[at] = `{"sessionId":"${sessionId}","seq":9999,"ti${'\0'.repeat(4096)}${lines[at]}`
    lines.splice(at, 0, '\0'.repeat(512))
    writeFileSync(file, lines.join('\n'))

    const resumed = await runCli(['run', '--resume', sessionId, '--json', 'three'], { env: { CORTEX_HOME: home, ...NO_MODEL_ENV } })
    expect(resumed.code).toBe(0)
    expect(ofType(resumed.events, 'session_resumed')).toEqual([expect.objectContaining({ skipped: 2, interruptedCalls: 0 })])
    // the records after the block were loaded: the model sees all three user messages
    expect(userTexts(server.requests[2]!)).toEqual(['one', 'two', 'three'])

    const plain = await runCli(['run', '--resume', sessionId, 'four'], { env: { CORTEX_HOME: home, ...NO_MODEL_ENV } })
    expect(plain.code).toBe(0)
    expect(plain.stderr).toMatch(/warning: resumed with openai-compatible · scripted · 2 damaged log records skipped/)
  }, 240_000)
})
