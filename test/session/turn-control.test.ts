// Messages queued during a turn, the loop guard and streams that cannot hang, through the real
// session service, the real AI SDK HTTP client and the scripted model server (openai-compatible):
// what the model receives is read from the recorded requests. Tool calls that run use the real
// Docker guest (skipped outside CI without Docker). Times are hang guards, except where a wait is
// the behaviour under test (retry-after), which is bounded from below only.
import { chownSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { GuestProvider } from '../../src/main/guest/guest'
import { LOOP_STOP_AT, LOOP_WARN_AT } from '../../src/main/harness/loop-guard'
import { createSessionService, type SessionService } from '../../src/main/session'
import { makeTestRepo, startTestGuest } from '../support/guest'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { skipWithoutDocker } from '../support/requirements'
import {
  rateLimitStep, sentToolResults, startScriptedModelServer, type RecordedRequest, type ScriptStep, type ScriptedModelServer
} from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

interface Harness {
  service: SessionService
  server: ScriptedModelServer
  events: SessionEvent[]
  sessionId: string
  submit(op: Parameters<SessionService['submit']>[0]['op']): Promise<unknown>
  /** Resolve at the first event matching `pred` (hang guard 30 s). */
  waitFor(pred: (e: SessionEvent) => boolean): Promise<SessionEvent>
}

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

const noGuest: GuestProvider = { start: async () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) }
/** Real Docker guests (containers labelled for the test sweep; removed at session close and after the file). */
const realGuest: GuestProvider = { start: (o) => startTestGuest(o.repo) }

type Provider = 'openai-compatible' | 'openai' | 'anthropic'

async function harness(
  script: ScriptStep[],
  opts: { guests?: GuestProvider; repo?: string; streamIdleTimeoutMs?: number; provider?: Provider } = {}
): Promise<Harness> {
  const server = await startScriptedModelServer(script)
  const dataDir = tempDir('cortex-control-')
  const service = await createSessionService({
    dataDir,
    modelSettings: { provider: opts.provider ?? 'openai-compatible', modelId: 'scripted', baseUrl: server.baseUrl, apiKey: 'k' },
    guests: opts.guests ?? noGuest,
    eagerGuest: false,
    ...(opts.streamIdleTimeoutMs ? { streamIdleTimeoutMs: opts.streamIdleTimeoutMs } : {})
  })
  cleanup.push(async () => {
    await service.shutdown()
    await server.close()
  })
  let repo = opts.repo
  if (!repo) {
    repo = tempDir('cortex-control-repo-')
    if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID) // root-owned repositories are refused
  }
  const events: SessionEvent[] = []
  const waiters: Array<{ pred: (e: SessionEvent) => boolean; resolve: (e: SessionEvent) => void }> = []
  service.onEvent((env: EventEnvelope) => {
    events.push(env.event)
    for (const w of waiters.splice(0)) {
      if (w.pred(env.event)) w.resolve(env.event)
      else waiters.push(w)
    }
  })
  const sessionId = (await service.openSession({ repo, mode: 'agent' })).id
  return {
    service, server, events, sessionId,
    submit: (op) => service.submit({ sessionId, op }),
    waitFor: (pred) => {
      const seen = events.find(pred)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        waiters.push({ pred, resolve })
        setTimeout(() => reject(new Error(`hang guard: event never came; events: ${JSON.stringify(events).slice(0, 2000)}`)), 30_000).unref()
      })
    }
  }
}

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type)

/** The chat-completions messages of a recorded request as role + text (tool calls shown by name). */
function roles(req: RecordedRequest | undefined): string[] {
  const messages = ((req?.body as { messages?: Array<{ role: string; content?: unknown; tool_calls?: Array<{ function: { name: string } }> }> })?.messages ?? [])
  return messages.filter((m) => m.role !== 'system').map((m) => {
    const text = typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? '').join('') : ''
    return m.role === 'assistant' && m.tool_calls?.length ? `assistant:${text}[${m.tool_calls.map((c) => c.function.name).join(',')}]` : `${m.role}:${text}`
  })
}

describe('messages typed during a turn', () => {
  it('are queued, removable, and the rest reach the model at the next step as their own user messages', async () => {
    // step 1 streams slowly and ends with a call of a tool that does not exist (refused without a guest)
    const h = await harness([
      { text: 'Let me look at this first.', toolCalls: [{ name: 'no_such_tool', args: {} }], chunkDelayMs: 150 },
      { text: 'Noted both.' }
    ])
    await h.submit({ type: 'user_message', text: 'Run the slow ticker' })
    await h.waitFor((e) => e.type === 'text_delta')
    await h.submit({ type: 'user_message', text: 'Are you still there?' })
    await h.submit({ type: 'user_message', text: 'scratch that' })
    await h.submit({ type: 'user_message', text: 'And use python.' })
    const queued = ofType(h.events, 'message_queued')
    expect(queued.map((q) => q.text)).toEqual(['Are you still there?', 'scratch that', 'And use python.'])
    await h.submit({ type: 'remove_queued', queueId: queued[1]!.queueId })
    await h.service.idle(h.sessionId)

    expect(ofType(h.events, 'queued_removed')).toEqual([{ type: 'queued_removed', queueId: queued[1]!.queueId }])
    expect(h.server.requests).toHaveLength(2)
    expect(roles(h.server.requests[1])).toEqual([
      'user:Run the slow ticker',
      'assistant:Let me look at this first.[no_such_tool]',
      expect.stringMatching(/^tool:/),
      'user:Are you still there?',
      'user:And use python.'
    ])
    // one turn, the queued messages delivered in it with their queue ids
    const users = ofType(h.events, 'user_message')
    expect(new Set(users.map((u) => u.turnId)).size).toBe(1)
    expect(users.map((u) => u.queueId)).toEqual([undefined, queued[0]!.queueId, queued[2]!.queueId])
    expect(ofType(h.events, 'turn_ended')).toHaveLength(1)
    // delivered or removed: nothing left to remove
    await expect(h.submit({ type: 'remove_queued', queueId: queued[0]!.queueId })).rejects.toMatchObject({ code: 'invalid_input' })
  })

  it.each(['openai', 'anthropic'] as const)('reach the model after the tool result over %s too', async (provider) => {
    const h = await harness([{ text: 'Looking.', toolCalls: [{ name: 'no_such_tool', args: {} }], chunkDelayMs: 100 }, { text: 'Noted.' }], { provider })
    await h.submit({ type: 'user_message', text: 'Run the slow ticker' })
    await h.waitFor((e) => e.type === 'text_delta')
    await h.submit({ type: 'user_message', text: 'Are you still there?' })
    await h.service.idle(h.sessionId)
    expect(ofType(h.events, 'turn_ended').map((e) => e.reason)).toEqual(['completed'])
    const body = JSON.stringify(h.server.requests[1]?.body)
    // after the tool result, and sent once (Anthropic puts it in the user turn holding the tool_result)
    const result = body.indexOf('no_such_tool', body.indexOf('Looking.'))
    expect(body.indexOf('Looking.')).toBeGreaterThan(0)
    expect(result).toBeGreaterThan(0)
    expect(body.indexOf('Are you still there?')).toBeGreaterThan(result)
    expect(body.split('Are you still there?')).toHaveLength(2)
    expect(body.split('Run the slow ticker')).toHaveLength(2)
  })

  it('start the next turn, in order, when the turn ends before a step boundary', async () => {
    const h = await harness([{ text: 'A slow answer in several words.', chunkDelayMs: 100 }, { text: 'Second turn.' }])
    await h.submit({ type: 'user_message', text: 'first' })
    await h.waitFor((e) => e.type === 'text_delta')
    await h.submit({ type: 'user_message', text: 'second' })
    await h.submit({ type: 'user_message', text: 'third' })
    await h.service.idle(h.sessionId)
    expect(ofType(h.events, 'turn_ended').map((e) => e.reason)).toEqual(['completed', 'completed'])
    expect(roles(h.server.requests[1])).toEqual(['user:first', 'assistant:A slow answer in several words.', 'user:second', 'user:third'])
    const turns = ofType(h.events, 'turn_started').map((t) => t.turnId)
    expect(ofType(h.events, 'user_message').map((u) => [u.text, turns.indexOf(u.turnId)])).toEqual([['first', 0], ['second', 1], ['third', 1]])
  })
})

describe.each(['openai-compatible', 'openai', 'anthropic'] as const)('streams that cannot hang (%s)', (provider) => {
  it('a stream that stalls after one token ends the turn with provider_timeout after one retry (idle timeout 3 s)', async () => {
    const h = await harness([{ text: 'Thinking', stallAfterTokens: 1 }, { text: 'Thinking', stallAfterTokens: 1 }, { text: 'never sent' }], { streamIdleTimeoutMs: 3000, provider })
    const t0 = Date.now()
    await h.submit({ type: 'user_message', text: 'go' })
    await h.service.idle(h.sessionId)
    expect(Date.now() - t0).toBeLessThan(60_000) // hang guard: about 6 s expected, the old behaviour waited 301 s
    expect(h.server.requests).toHaveLength(2)
    expect(h.server.requests.every((r) => r.closedByClient)).toBe(true)
    const [error] = ofType(h.events, 'error')
    expect(error).toMatchObject({ code: 'provider_timeout' })
    expect(error?.message).toMatch(/sent nothing for 3 s.*--stream-idle-timeout.*CORTEX_STREAM_IDLE_TIMEOUT/)
    expect(ofType(h.events, 'model_retrying')).toEqual([expect.objectContaining({ attempt: 2, reason: 'the model sent nothing for 3 s' })])
    expect(ofType(h.events, 'model_waiting').some((w) => w.waitedMs >= 1500)).toBe(true)
    expect(ofType(h.events, 'turn_ended').at(-1)?.reason).toBe('error')
  })

  it('a 429 is retried after its retry-after and the turn completes', async () => {
    const h = await harness([rateLimitStep('1'), { text: 'Back again.' }], { provider })
    await h.submit({ type: 'user_message', text: 'go' })
    await h.service.idle(h.sessionId)
    expect(ofType(h.events, 'model_retrying')).toEqual([expect.objectContaining({ attempt: 2, delayMs: 1000, reason: 'HTTP 429' })])
    expect(h.server.requests).toHaveLength(2)
    expect(h.server.requests[1]!.receivedAt - h.server.requests[0]!.receivedAt).toBeGreaterThanOrEqual(990)
    expect(ofType(h.events, 'turn_ended')[0]?.reason).toBe('completed')
  })

  it('Stop during a retry-after wait ends the turn at once and nothing is retried', async () => {
    const h = await harness([rateLimitStep('30'), { text: 'never' }], { provider })
    await h.submit({ type: 'user_message', text: 'go' })
    await h.waitFor((e) => e.type === 'model_retrying')
    const t0 = Date.now()
    await h.submit({ type: 'stop' })
    await h.service.idle(h.sessionId)
    expect(Date.now() - t0).toBeLessThan(10_000) // hang guard: the server asked for 30 s
    expect(ofType(h.events, 'turn_ended')[0]?.reason).toBe('stopped')
    await new Promise((r) => setTimeout(r, 200)) // a window for a late retry to show: none must come, so nothing to wait for
    expect(h.server.requests).toHaveLength(1)
  })
})

describe.skipIf(skipWithoutDocker())('in the real guest', () => {
  it('a message sent while a command runs reaches the model after its result, as its own user message', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const h = await harness([{ toolCalls: [{ name: 'bash', args: { command: 'sleep 2; echo ticked' } }] }, { text: 'Yes, still here.' }], { guests: realGuest, repo })
    await h.submit({ type: 'user_message', text: 'Run the slow ticker' })
    await h.waitFor((e) => e.type === 'tool_call_started')
    await h.submit({ type: 'user_message', text: 'Are you still there?' })
    await h.service.idle(h.sessionId)
    const sent = roles(h.server.requests[1])
    expect(sent[0]).toBe('user:Run the slow ticker')
    expect(sent.slice(2)).toEqual([expect.stringMatching(/^tool:.*ticked/s), 'user:Are you still there?'])
    expect(ofType(h.events, 'turn_ended')).toHaveLength(1)
  }, 120_000)

  it('the same failing command 5 times stops the turn with loop_detected; the model was warned at the 3rd', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const call = { name: 'bash', args: { command: 'cat missing.txt' } }
    const h = await harness([...Array.from({ length: LOOP_STOP_AT + 1 }, () => ({ toolCalls: [call] })), { text: 'never' }], { guests: realGuest, repo })
    await h.submit({ type: 'user_message', text: 'read it' })
    await h.service.idle(h.sessionId)
    expect(h.server.requests).toHaveLength(LOOP_STOP_AT)
    const results = sentToolResults(h.server.requests[LOOP_STOP_AT - 1]!).map((r) => r.output)
    expect(results).toHaveLength(LOOP_STOP_AT - 1)
    expect(results[LOOP_WARN_AT - 2]).not.toContain('[Cortex:')
    expect(results[LOOP_WARN_AT - 1]).toMatch(/No such file[\s\S]*\[Cortex: this exact call .* failed the same way 3 times/)
    expect(ofType(h.events, 'error')).toEqual([expect.objectContaining({ code: 'loop_detected' })])
    expect(ofType(h.events, 'tool_call_finished')).toHaveLength(LOOP_STOP_AT) // every call has its result
    expect(ofType(h.events, 'turn_ended').at(-1)?.reason).toBe('error')
  }, 120_000)

  it('polling (the same failing call whose output changes) is not a loop', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const call = { name: 'bash', args: { command: 'n=$(cat /tmp/n 2>/dev/null || echo 0); echo $((n+1)) > /tmp/n; echo "pending $n"; exit 3' } }
    const h = await harness([...Array.from({ length: LOOP_STOP_AT + 2 }, () => ({ toolCalls: [call] })), { text: 'Done polling.' }], { guests: realGuest, repo })
    await h.submit({ type: 'user_message', text: 'poll' })
    await h.service.idle(h.sessionId)
    expect(ofType(h.events, 'error')).toEqual([])
    expect(ofType(h.events, 'turn_ended').at(-1)?.reason).toBe('completed')
    expect(sentToolResults(h.server.requests.at(-1)!).every((r) => !r.output.includes('[Cortex:'))).toBe(true)
  }, 120_000)
})
