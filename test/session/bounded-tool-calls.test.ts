// Bounded tool calls over real HTTP (scripted model server, all three wire formats): an argument
// over the cap is refused as an error result and kept in history truncated, so the NEXT request is
// small; empty, path-like and huge tool names get error results the model sees and the turn goes on.
import { chownSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { MAX_TOOL_ARGS_BYTES } from '../../src/main/harness/history'
import { MAX_MALFORMED_STEPS, MAX_STEP_TEXT_CHARS } from '../../src/main/harness/turn-loop'
import { createSessionService, type SessionService } from '../../src/main/session'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { sentToolCalls, sentToolResults, startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

let cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanup) await c()
  cleanup = []
})

interface Run {
  server: ScriptedModelServer
  events: SessionEvent[]
  dataDir: string
  sessionId: string
  starts: number
}

async function runOneTurn(provider: 'openai-compatible' | 'openai' | 'anthropic', script: ScriptStep[]): Promise<Run> {
  const server = await startScriptedModelServer(script)
  const dataDir = tempDir('cortex-bounded-')
  const run: Run = { server, events: [], dataDir, sessionId: '', starts: 0 }
  const service: SessionService = await createSessionService({
    dataDir,
    modelSettings: { provider, modelId: 'scripted', baseUrl: server.baseUrl, apiKey: 'test-key' },
    guests: {
      start: async () => {
        run.starts++
        throw new CortexError('guest_failed', 'no guest in this test')
      }
    },
    eagerGuest: false
  })
  cleanup.push(async () => {
    await service.shutdown()
    await server.close()
  })
  service.onEvent((e: EventEnvelope) => run.events.push(e.event))
  const repo = tempDir('cortex-bounded-repo-')
  if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID) // a root-owned repository is refused
  run.sessionId = (await service.openSession({ repo, mode: 'agent' })).id
  await service.submit({ sessionId: run.sessionId, op: { type: 'user_message', text: 'go' } })
  await service.idle(run.sessionId)
  return run
}

const bodyBytes = (server: ScriptedModelServer, i: number): number => Buffer.byteLength(JSON.stringify(server.requests[i]?.body ?? null))
const finished = (events: SessionEvent[]) => events.filter((e): e is Extract<SessionEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished')

describe.each(['openai-compatible', 'openai', 'anthropic'] as const)('bounded tool calls over %s', (provider) => {
  it('refuses a 10 MiB argument as an error result; the next request and the log stay small', async () => {
    const huge = 'x'.repeat(10 * 1024 * 1024)
    const run = await runOneTurn(provider, [
      { toolCalls: [{ name: 'write_file', args: { path: 'big.txt', content: huge } }] },
      { toolCalls: [{ name: 'todo_read', args: {} }] },
      { text: 'ok, smaller pieces then' }
    ])
    expect(run.server.requests).toHaveLength(3)
    const [refused, next] = finished(run.events)
    expect(refused).toMatchObject({ name: 'write_file', isError: true })
    expect(refused!.result).toMatch(/(over|past) the \d+-byte cap/)
    expect(refused!.result).toContain(String(MAX_TOOL_ARGS_BYTES))
    expect(next).toMatchObject({ name: 'todo_read', isError: false })
    // the model sees the refusal, and the call is replayed truncated, on every later request
    for (const i of [1, 2]) {
      expect(bodyBytes(run.server, i)).toBeLessThan(100 * 1024)
      expect(sentToolResults(run.server.requests[i]!)[0]?.output).toContain(refused!.result)
      expect(JSON.stringify(sentToolCalls(run.server.requests[i]!)[0]?.args)).toMatch(/truncated/)
    }
    expect(run.events.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    expect(run.starts).toBe(0)
    const log = join(run.dataDir, 'sessions', run.sessionId, 'events.jsonl')
    expect(statSync(log).size).toBeLessThan(100 * 1024)
    expect(readFileSync(log, 'utf8')).toContain('"_truncated"')
  })

  it('stops reading the response as soon as streamed arguments pass the cap', async () => {
    const run = await runOneTurn(provider, [
      // frames paced so the response is still streaming when the client gives up on it
      { toolCalls: [{ name: 'write_file', args: { path: 'big.txt', content: 'y'.repeat(8 * 1024 * 1024) } }], chunkDelayMs: 50 },
      { text: 'understood' }
    ])
    expect(run.server.requests[0]?.closedByClient).toBe(true)
    const [refused] = finished(run.events)
    expect(refused).toMatchObject({ name: 'write_file', isError: true })
    expect(refused!.result).toMatch(/past the \d+-byte cap/)
    expect(bodyBytes(run.server, 1)).toBeLessThan(100 * 1024)
    expect(run.events.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
  })

  it('answers empty, path-like and 10 KB junk tool names with error results and goes on', async () => {
    const junk = 'Ω<>/'.repeat(2560)
    const run = await runOneTurn(provider, [
      { toolCalls: [{ name: '../x', args: { path: '/etc/passwd' } }, { name: junk, args: {} }] },
      // an empty name: the chat-completions SDK rejects the whole response (InvalidResponseDataError)
      { text: 'trying again', toolCalls: [{ name: '', args: {} }] },
      { text: 'sorry' }
    ])
    const results = finished(run.events)
    expect(results.map((r) => r.isError)).toEqual([true, true, true])
    for (const r of results) expect(r.result).toMatch(/does not exist|malformed tool call/)
    expect(results[1]!.result.length).toBeLessThan(1000)
    expect(run.events.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    expect(run.server.requests).toHaveLength(3)
    expect(sentToolResults(run.server.requests[2]!)).toHaveLength(3)
    // replayed names are ones every provider accepts, and the junk is not re-sent in full
    for (const call of sentToolCalls(run.server.requests[2]!)) expect(call.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
    // the junk name (12.8 KB as UTF-8) is not re-sent: the third request grows over the first by less
    // (measured relative to the first request, so the system prompt's own growth does not matter)
    expect(bodyBytes(run.server, 2) - bodyBytes(run.server, 0)).toBeLessThan(8 * 1024)
    expect(run.starts).toBe(0)
  })
})

describe('malformed responses', () => {
  it(`ends the turn with a typed error after ${MAX_MALFORMED_STEPS} malformed responses in a row`, async () => {
    const empty: ScriptStep = { toolCalls: [{ name: '', args: {} }] }
    const run = await runOneTurn('openai-compatible', Array.from({ length: MAX_MALFORMED_STEPS + 1 }, () => empty))
    expect(run.server.requests).toHaveLength(MAX_MALFORMED_STEPS)
    expect(finished(run.events)).toHaveLength(MAX_MALFORMED_STEPS - 1)
    const error = run.events.find((e) => e.type === 'error')
    expect(error).toMatchObject({ code: 'provider_error' })
    expect(run.events.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'error' })
  })
})

describe('bounded answers', () => {
  it(`cuts an answer at ${MAX_STEP_TEXT_CHARS} characters, stops reading the response and completes the turn`, async () => {
    const word = 'z'.repeat(3 * 1024 * 1024)
    const run = await runOneTurn('openai-compatible', [{ text: `${word} ${word} ${word}`, chunkDelayMs: 50 }])
    expect(run.server.requests[0]?.closedByClient).toBe(true)
    const message = run.events.find((e): e is Extract<SessionEvent, { type: 'assistant_message' }> => e.type === 'assistant_message')
    expect(message!.text.length).toBeLessThan(MAX_STEP_TEXT_CHARS + 200)
    expect(message!.text).toMatch(/the answer was cut at \d+ characters/)
    expect(run.events.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    const log = join(run.dataDir, 'sessions', run.sessionId, 'events.jsonl')
    expect(statSync(log).size).toBeLessThan(MAX_STEP_TEXT_CHARS + 100 * 1024)
  })
})
