// Compaction through the real loop, a real Docker guest and the scripted model server (which
// reports the prompt tokens of each step): the threshold crossed → the next request carries the
// latest user message, the todos with their statuses, the open files as they are NOW in the guest,
// the recent diff and the summary, below the threshold, and the session goes on; a summariser answered
// with HTTP 500 ends the turn with compaction_failed and the log only grows (byte-for-byte prefix),
// then `compact` succeeds; a summary that never fits → at most two summariser calls; a fixed context
// over the budget → context_overflow without a call; "prompt too long" → one compaction, one retry,
// never a loop; a resumed session sends the compacted context.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'

const WINDOW = 20_000 // tokens; threshold 80% → budget 16 000
const HEADING = '[Cortex: the conversation before this point was compacted]'
const SUMMARY = '## Intent\nParse the config.\n## Key decisions\nUse a.txt.\n## Files and what changed\nb.txt edited.\n## Errors and fixes\nnone\n## Failed attempts\nnone\n## What remains\nparser\n## Next step\nrun tests'

/** Every string in a JSON body, joined: the text a request carries whatever its wire format. */
function allText(v: unknown): string {
  if (typeof v === 'string') return v
  if (Array.isArray(v)) return v.map(allText).join('\n')
  if (v && typeof v === 'object') return Object.values(v).map(allText).join('\n')
  return ''
}
const http500 = (): ScriptStep => ({ httpError: { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'summariser down', param: null, code: null } } } })
const tooLong = (): ScriptStep => ({
  httpError: { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum', param: null, code: null } } }
})

describe.skipIf(skipWithoutDocker())('compaction over a Docker guest', () => {
  const cleanups: Array<() => Promise<void> | void> = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
    delete process.env.CORTEX_CONTEXT_WINDOW
    delete process.env.CORTEX_COMPACT_KEEP_STEPS
  })

  async function open(files: Record<string, string>, script: ScriptStep[], window = WINDOW) {
    ensureAgentBundle()
    const server: ScriptedModelServer = await startScriptedModelServer(script)
    const repo = await makeTestRepo(files)
    const dataDir = mkdtempSync(join(tmpdir(), 'cortex-compact-'))
    process.env.CORTEX_CONTEXT_WINDOW = String(window)
    const guests = createDefaultGuestProvider({ warmPool: 0 })
    let service: SessionService = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl }, guests })
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => server.close(), () => guests.close(), () => service.shutdown())
    const events: EventEnvelope[] = []
    service.onEvent((e) => events.push(e))
    const sessionId = (await service.openSession({ repo, approvalPolicy: 'never' })).id
    const run = async (op: Parameters<SessionService['submit']>[0]['op']): Promise<SessionEvent[]> => {
      const from = events.length
      await service.submit({ sessionId, op })
      await service.idle(sessionId)
      return events.slice(from).map((e) => e.event)
    }
    const logFile = join(dataDir, 'sessions', sessionId, 'events.jsonl')
    const reopen = async (): Promise<void> => {
      await service.shutdown()
      service = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl }, guests })
      service.onEvent((e) => events.push(e))
      await service.resumeSession({ sessionId, approvalPolicy: 'never' })
    }
    const stop = (): Promise<unknown> => service.submit({ sessionId, op: { type: 'stop' } })
    return { server, repo, sessionId, events, run, logFile, reopen, stop }
  }

  it('crossing the threshold: the next request holds the latest message, todos, current files, the diff and the summary, below the threshold; the turn goes on', async () => {
    const s = await open({ 'a.txt': 'alpha v1\n', 'b.txt': 'beta one\n' }, [
      { text: 'Planning.', toolCalls: [{ name: 'todo_write', args: { todos: [{ content: 'write the parser', status: 'in_progress' }, { content: 'run the tests', status: 'pending' }] } }], usage: { input: 2000 } },
      { toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }, { name: 'edit_file', args: { path: 'b.txt', old_string: 'beta one', new_string: 'beta TWO' } }], usage: { input: 3000 } },
      // a bash command changes a.txt after it was read: the keep-set must show its new content
      { toolCalls: [{ name: 'bash', args: { command: 'echo "alpha v2 written by bash" > a.txt' } }], usage: { input: 17_000, cached: 15_000 } },
      { text: SUMMARY }, // the summariser
      { text: 'Done.', usage: { input: 3000 } }
    ])
    const latest = 'Please parse the config in a.txt and keep b.txt edited — LATEST-MESSAGE-MARKER'
    const evs = await s.run({ type: 'user_message', text: latest })
    expect(evs.filter((e) => e.type === 'error')).toEqual([])
    expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    expect(s.server.requests).toHaveLength(5)
    const finished = evs.find((e): e is Extract<SessionEvent, { type: 'compaction_finished' }> => e.type === 'compaction_finished')
    expect(finished).toMatchObject({ trigger: 'auto', method: 'summary', summary: SUMMARY })
    expect(finished!.tokensBefore).toBeGreaterThan(16_000)
    expect(finished!.tokensAfter).toBeLessThan(16_000)

    const next = allText(s.server.requests[4]!.body)
    expect(next).toContain(HEADING)
    expect(next).toContain(latest)
    expect(next).toContain('- [in_progress] write the parser')
    expect(next).toContain('- [pending] run the tests')
    // the open file's block shows the content as it is now in the guest (re-read at compaction time)
    expect(next).toMatch(/### a\.txt\n(`{3,})\nalpha v2 written by bash\n\n\1/)
    expect(next).not.toContain('alpha v1\n```') // the stale content read before bash changed it is not what the keep-set shows
    expect(next).toContain('-beta one\n+beta TWO') // the recent diff (git diff in the guest)
    expect(next).toContain('## Next step\nrun tests')
    expect(next.length / 4).toBeLessThan(16_000)
    // the summariser's tokens count for the turn, marked so the context accounting skips them
    expect(evs.filter((e) => e.type === 'usage' && e.purpose === 'summary')).toHaveLength(1)
    expect(evs.find((e) => e.type === 'turn_ended')).toMatchObject({ usage: { requests: 5 } })
    // the summariser got the transcript, not the tools
    expect(allText(s.server.requests[3]!.body)).toContain('Transcript to summarise')
    // the turn's own events are all still in the log, marked by the compaction around them
    expect(evs.map((e) => e.type)).toEqual(expect.arrayContaining(['compaction_started', 'compaction_finished', 'context_usage']))
  })

  it('a summariser answering HTTP 500 ends the turn with compaction_failed, the log only grows, and compact succeeds after', async () => {
    const s = await open({ 'a.txt': 'alpha\n' }, [
      { text: 'Hello.', usage: { input: 1000 } },
      { toolCalls: [{ name: 'bash', args: { command: 'true' } }], usage: { input: 17_000 } },
      http500(),
      { text: SUMMARY } // after recovery: the /compact
    ])
    await s.run({ type: 'user_message', text: 'first' })
    const before = readFileSync(s.logFile)
    const evs = await s.run({ type: 'user_message', text: 'second' })
    const error = evs.find((e) => e.type === 'error')
    expect(error).toMatchObject({ code: 'compaction_failed' })
    expect(error?.type === 'error' && error.message).toMatch(/^compaction failed: the summariser failed \(.*\) — history kept; retry, switch model, or start a new session from a summary$/)
    expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'error' })
    expect(evs.find((e) => e.type === 'compaction_failed')).toBeDefined()
    const after = readFileSync(s.logFile)
    expect(after.subarray(0, before.length).equals(before)).toBe(true)
    // it grew by the second turn's events and the failure's own, and nothing says compaction_finished
    const added = after.subarray(before.length).toString('utf8').trim().split('\n').map((l) => (JSON.parse(l) as EventEnvelope).event.type)
    expect(added).toContain('compaction_failed')
    expect(added).not.toContain('compaction_finished')
    expect(s.server.requests).toHaveLength(3) // one summariser call: an error is not retried

    const compacted = await s.run({ type: 'compact' })
    expect(compacted.find((e) => e.type === 'compaction_finished')).toMatchObject({ trigger: 'manual', summary: SUMMARY })
    expect(compacted.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    const grown = readFileSync(s.logFile)
    expect(grown.subarray(0, after.length).equals(after)).toBe(true)
  })

  it('a summary that never fits: at most two summariser calls, then compaction_failed; a fixed context over the budget: context_overflow with no call', async () => {
    const huge = `## Intent\n${`${'y'.repeat(99)} `.repeat(1000)}` // ~25k tokens in 1000 stream deltas
    const s = await open({ 'a.txt': 'alpha\n' }, [
      { toolCalls: [{ name: 'bash', args: { command: 'true' } }], usage: { input: 17_000 } },
      { text: huge },
      { text: huge },
      { text: SUMMARY } // never reached
    ])
    const evs = await s.run({ type: 'user_message', text: 'go' })
    expect(evs.find((e) => e.type === 'error')).toMatchObject({ code: 'compaction_failed', message: expect.stringContaining('failed verification twice') })
    expect(s.server.requests).toHaveLength(3) // the step and two summariser calls
    expect(s.server.remaining()).toBe(1)

    const overflow = await s.run({ type: 'user_message', text: 'x'.repeat(70_000) }) // ~17.5k tokens: the latest message alone exceeds 16k
    expect(overflow.find((e) => e.type === 'error')).toMatchObject({ code: 'context_overflow', message: expect.stringContaining('fixed context exceeds the budget') })
    expect(s.server.requests).toHaveLength(3) // no summariser call, no model request
  })

  it('"prompt too long": one compaction and one retry, never a loop', async () => {
    const s = await open({ 'a.txt': 'alpha\n' }, [tooLong(), { text: SUMMARY }, tooLong(), { text: 'never sent' }])
    // nothing to compact yet: refused without a model call
    expect((await s.run({ type: 'compact' })).find((e) => e.type === 'error')).toMatchObject({ code: 'invalid_input', message: expect.stringContaining('nothing to compact') })
    expect(s.server.requests).toHaveLength(0)
    const evs = await s.run({ type: 'user_message', text: 'hello' })
    expect(evs.filter((e) => e.type === 'compaction_finished')).toEqual([expect.objectContaining({ trigger: 'overflow' })])
    expect(evs.find((e) => e.type === 'error')).toMatchObject({ code: 'context_overflow', message: expect.stringContaining('still says the prompt is too long') })
    expect(s.server.requests).toHaveLength(3)
    expect(allText(s.server.requests[2]!.body)).toContain(HEADING) // the retry carried the compacted context
  })

  it('Stop during a compaction stops it and keeps the history whole', async () => {
    const s = await open({ 'a.txt': 'alpha\n' }, [
      { toolCalls: [{ name: 'bash', args: { command: 'echo KEPT-OUTPUT-MARKER' } }], usage: { input: 17_000 } },
      { text: '## Intent\npartial', hangAfterText: true }, // the summariser, stuck
      { text: 'Still here.', usage: { input: 1000 } }
    ])
    const from = s.events.length
    const done = s.run({ type: 'user_message', text: 'go' })
    for (let i = 0; i < 400 && !s.server.requests[1]?.hanging; i++) await new Promise((r) => setTimeout(r, 25)) // hang guard: 10 s
    expect(s.server.requests[1]?.hanging).toBe(true)
    await s.stop()
    await done
    const evs = s.events.slice(from).map((e) => e.event)
    expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'stopped' })
    expect(evs.find((e) => e.type === 'compaction_failed')).toMatchObject({ reason: expect.stringContaining('stopped') })
    expect(evs.some((e) => e.type === 'compaction_finished')).toBe(false)
    expect(s.server.requests[1]?.closedByClient).toBe(true) // the summariser request was aborted
  })

  it('a resumed session sends the compacted context', async () => {
    process.env.CORTEX_COMPACT_KEEP_STEPS = '0' // nothing verbatim: the old step is summarised away
    const s = await open({ 'a.txt': 'alpha\n' }, [
      { toolCalls: [{ name: 'bash', args: { command: 'echo OLD-OUTPUT-MARKER' } }], usage: { input: 1000 } },
      { text: 'Done with the old part.', usage: { input: 9000 } },
      { text: SUMMARY }, // compact
      { text: 'Resumed.', usage: { input: 900 } }
    ])
    await s.run({ type: 'user_message', text: 'old work' })
    await s.run({ type: 'compact', focus: 'the parser' })
    expect(allText(s.server.requests[2]!.body)).toContain('focus on: the parser')
    await s.reopen()
    await s.run({ type: 'user_message', text: 'after resume' })
    const sent = allText(s.server.requests[3]!.body)
    expect(sent).toContain(HEADING)
    expect(sent).toContain('## Next step\nrun tests')
    expect(sent).toContain('old work') // kept user message
    expect(sent).toContain('after resume')
    expect(sent).not.toContain('OLD-OUTPUT-MARKER') // the old tool output is summarised away
  })
})
