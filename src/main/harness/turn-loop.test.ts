// The turn loop on its own: the AI SDK's in-process mock language model plays the model (no
// Docker, no HTTP), fake tools stand in for the guest. Covers text only, several calls in one step,
// malformed calls, Stop mid-stream and mid-call, queued messages, the loop guard, the compaction
// trigger and a provider error.
import { APICallError, type LanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { CortexError } from '../../shared/errors'
import type { SessionEvent } from '../../shared/events'
import type { Mode } from '../../shared/modes'
import type { ToolDefinition, ToolSessionState } from '../tools/tool'
import { runTurn, type TurnDeps } from './turn-loop'
import { waitUntil } from '../../../test/support/wait-until'

/** One scripted model step: the stream parts to send, a thrown error, or a stream that stays open until aborted. */
type Step = LanguageModelV4StreamPart[] | { error: unknown } | { hangAfter: LanguageModelV4StreamPart[] }

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } }
const finish = (unified: 'stop' | 'tool-calls' | 'length' = 'stop'): LanguageModelV4StreamPart => ({ type: 'finish', usage, finishReason: { unified, raw: unified } })
const text = (t: string): LanguageModelV4StreamPart[] => [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: t }, { type: 'text-end', id: 't' }]
const call = (id: string, name: string, input: unknown): LanguageModelV4StreamPart => ({ type: 'tool-call', toolCallId: id, toolName: name, input: typeof input === 'string' ? input : JSON.stringify(input) })

/** A mock model answering each request with the next step; records what each request offered. */
function scriptedModel(steps: Step[]): { model: LanguageModel; calls: LanguageModelV4CallOptions[] } {
  const calls: LanguageModelV4CallOptions[] = []
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      calls.push(options)
      const step = steps.shift()
      if (!step) throw new Error(`the script has no step for request ${calls.length}`)
      if ('error' in step) throw step.error
      const parts = Array.isArray(step) ? step : step.hangAfter
      const hang = !Array.isArray(step)
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] })
          for (const p of parts) controller.enqueue(p)
          if (!hang) return controller.close()
          options.abortSignal?.addEventListener('abort', () => controller.error(options.abortSignal?.reason ?? new DOMException('aborted', 'AbortError')), { once: true })
        }
      })
      return { stream }
    }
  })
  return { model, calls }
}

/** Fake tools: read_file echoes its path, bash runs `body` (which may wait on the signal); neither needs a guest. */
function fakeCatalog(bash: (command: string, signal: AbortSignal) => Promise<string> = async (c) => `ran ${c}`): Record<string, ToolDefinition> {
  const read: ToolDefinition = {
    name: 'read_file',
    description: 'read a file',
    inputSchema: z.object({ path: z.string() }),
    needsGuest: false,
    execute: async (input) => ({ output: `content of ${(input as { path: string }).path}` })
  }
  const sh: ToolDefinition = {
    name: 'bash',
    description: 'run a command',
    inputSchema: z.object({ command: z.string() }),
    needsGuest: false,
    execute: async (input, ctx) => {
      const out = await bash((input as { command: string }).command, ctx.signal)
      return out.startsWith('FAIL') ? { output: out, isError: true } : { output: out }
    }
  }
  return { read_file: read, bash: sh }
}

const noSession: ToolSessionState = { getTodos: () => [], setTodos: () => undefined, setPlan: () => undefined }

/** A turn's dependencies over an in-memory event log; `events` holds what the loop emitted. */
function turnDeps(model: LanguageModel, over: Partial<TurnDeps> = {}): TurnDeps & { log: SessionEvent[] } {
  const log: SessionEvent[] = [{ type: 'user_message', turnId: 't1', text: 'do the task' }]
  return {
    log,
    turnId: 't1',
    model,
    signal: new AbortController().signal,
    catalog: fakeCatalog(),
    getMode: (): Mode => 'agent',
    events: () => log,
    emit: (e) => void log.push(e),
    getGuest: () => Promise.reject(new Error('no guest in unit tests')),
    session: noSession,
    classifyError: (err) => (err instanceof CortexError ? err : new CortexError('provider_error', err instanceof Error ? err.message : String(err))),
    systemPrompt: (mode) => `you are in ${mode} mode`,
    maxRetries: 0,
    ...over
  }
}

const of = <T extends SessionEvent['type']>(log: SessionEvent[], type: T) => log.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type)

/** Resolves when `cond` holds, polled each few ms; rejects after `ms` (a hang guard). */
const until = (cond: () => boolean, ms = 5000): Promise<void> => waitUntil(cond, ms, 'the condition', 5)

describe('runTurn', () => {
  it('a text-only answer completes the turn with one assistant message and its usage', async () => {
    const { model, calls } = scriptedModel([[...text('All done.'), finish()]])
    const deps = turnDeps(model)
    await expect(runTurn(deps)).resolves.toBe('completed')
    expect(calls).toHaveLength(1)
    expect(of(deps.log, 'text_delta').map((e) => e.text).join('')).toBe('All done.')
    expect(of(deps.log, 'assistant_message')).toEqual([expect.objectContaining({ text: 'All done.', toolCalls: [] })])
    expect(of(deps.log, 'usage')[0]).toMatchObject({ inputTokens: 10, outputTokens: 5 })
  })

  it('runs several tool calls of one step in order, then asks again with their results', async () => {
    const { model, calls } = scriptedModel([
      [call('c1', 'read_file', { path: 'a.txt' }), call('c2', 'bash', { command: 'ls' }), finish('tool-calls')],
      [...text('read and listed'), finish()]
    ])
    const deps = turnDeps(model)
    await expect(runTurn(deps)).resolves.toBe('completed')
    const finished = of(deps.log, 'tool_call_finished')
    expect(finished.map((e) => [e.callId, e.result, e.isError])).toEqual([
      ['c1', 'content of a.txt', false],
      ['c2', 'ran ls', false]
    ])
    const order = deps.log.map((e) => e.type === 'tool_call_started' || e.type === 'tool_call_finished' ? `${e.type}:${e.callId}` : null).filter(Boolean)
    expect(order).toEqual(['tool_call_started:c1', 'tool_call_finished:c1', 'tool_call_started:c2', 'tool_call_finished:c2'])
    // the second request carries both results back to the model
    const second = JSON.stringify(calls[1]!.prompt)
    expect(second).toContain('content of a.txt')
    expect(second).toContain('ran ls')
    // Agent mode offers both fake tools
    expect(calls[0]!.tools?.map((t) => t.name).sort()).toEqual(['bash', 'read_file'])
  })

  it('refuses malformed calls with error results the model can act on, and the turn goes on', async () => {
    const { model } = scriptedModel([
      [call('bad-name', '../x', {}), call('bad-json', 'read_file', '{"path": '), call('unknown', 'write_file', { path: 'a', content: 'b' }), call('bad-schema', 'read_file', { file: 1 }), finish('tool-calls')],
      [...text('ok'), finish()]
    ])
    const deps = turnDeps(model)
    await expect(runTurn(deps)).resolves.toBe('completed')
    const results = Object.fromEntries(of(deps.log, 'tool_call_finished').map((e) => [e.callId, e]))
    expect(Object.keys(results).sort()).toEqual(['bad-json', 'bad-name', 'bad-schema', 'unknown'])
    for (const r of Object.values(results)) expect(r.isError).toBe(true)
    expect(results['bad-name']!.result).toMatch(/not a valid tool name/)
    expect(results['unknown']!.result).toMatch(/write_file/)
    expect(results['bad-schema']!.result).toMatch(/invalid arguments for read_file/)
    // every started call has its result (the history stays valid)
    expect(of(deps.log, 'tool_call_started').map((e) => e.callId).sort()).toEqual(Object.keys(results).sort())
  })

  it('withholds and refuses tools the mode does not offer (Ask: no bash)', async () => {
    const ran: string[] = []
    const { model, calls } = scriptedModel([[call('c1', 'bash', { command: 'rm -rf x' }), finish('tool-calls')], [...text('sorry'), finish()]])
    const deps = turnDeps(model, { getMode: () => 'ask', catalog: fakeCatalog(async (c) => (ran.push(c), 'ran')) })
    await expect(runTurn(deps)).resolves.toBe('completed')
    expect(calls[0]!.tools?.map((t) => t.name)).toEqual(['read_file'])
    expect(ran).toEqual([])
    expect(of(deps.log, 'tool_call_finished')[0]!.result).toMatch(/not available in ask mode/)
  })

  it('Stop mid-stream ends the turn as stopped, keeping the text so far and dropping no finished call', async () => {
    const stop = new AbortController()
    const { model } = scriptedModel([{ hangAfter: [...text('thinking about it'), call('c1', 'read_file', { path: 'a.txt' })] }])
    const deps = turnDeps(model, { signal: stop.signal })
    const outcome = runTurn(deps)
    await until(() => of(deps.log, 'text_delta').length > 0)
    stop.abort()
    await expect(outcome).resolves.toBe('stopped')
    expect(of(deps.log, 'assistant_message')[0]).toMatchObject({ text: 'thinking about it' })
    // the call whose arguments had arrived is recorded with a "not run" result
    const finished = of(deps.log, 'tool_call_finished')
    expect(finished.map((e) => e.callId)).toEqual(['c1'])
    expect(finished[0]!.isError).toBe(true)
  })

  it('Stop mid-call interrupts the running call with its partial output and leaves later calls not run', async () => {
    const stop = new AbortController()
    let running = false
    const bash = (_c: string, signal: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        running = true
        signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true })
      })
    const { model, calls } = scriptedModel([[call('c1', 'bash', { command: 'sleep 30' }), call('c2', 'read_file', { path: 'b' }), finish('tool-calls')]])
    const deps = turnDeps(model, { signal: stop.signal, catalog: fakeCatalog(bash) })
    const outcome = runTurn(deps)
    await until(() => running)
    stop.abort()
    await expect(outcome).resolves.toBe('stopped')
    expect(calls).toHaveLength(1)
    const finished = Object.fromEntries(of(deps.log, 'tool_call_finished').map((e) => [e.callId, e]))
    expect(finished['c1']).toMatchObject({ isError: true })
    expect(finished['c1']!.result).toMatch(/interrupted/i)
    expect(finished['c2']).toMatchObject({ isError: true })
    expect(finished['c2']!.result).not.toBe(finished['c1']!.result)
  })

  it('delivers queued messages at the next step boundary, each as its own user message', async () => {
    const queue = [{ queueId: 'q1', text: 'also check b.txt' }]
    const { model, calls } = scriptedModel([[call('c1', 'read_file', { path: 'a.txt' }), finish('tool-calls')], [...text('done'), finish()]])
    const deps = turnDeps(model, { takeQueued: () => queue.splice(0) })
    await expect(runTurn(deps)).resolves.toBe('completed')
    const users = of(deps.log, 'user_message')
    expect(users.map((u) => u.text)).toEqual(['do the task', 'also check b.txt'])
    expect(users[1]).toMatchObject({ queueId: 'q1' })
    // the queued message reaches the model in the second request, after the first step's result
    const second = JSON.stringify(calls[1]!.prompt)
    expect(second.indexOf('also check b.txt')).toBeGreaterThan(second.indexOf('content of a.txt'))
    expect(JSON.stringify(calls[0]!.prompt)).not.toContain('also check b.txt')
  })

  it('the loop guard notes the 3rd identical failure and ends the turn with loop_detected at the 5th', async () => {
    const failing = Array.from({ length: 6 }, (_, i): Step => [call(`c${i}`, 'bash', { command: 'make' }), finish('tool-calls')])
    const { model, calls } = scriptedModel(failing)
    const deps = turnDeps(model, { catalog: fakeCatalog(async () => 'FAIL exit_code: 2\nno rule to make target') })
    await expect(runTurn(deps)).rejects.toMatchObject({ code: 'loop_detected' })
    expect(calls).toHaveLength(5)
    const results = of(deps.log, 'tool_call_finished').map((e) => e.result)
    expect(results).toHaveLength(5)
    expect(results[1]).toBe(results[0])
    expect(results[2]!.length).toBeGreaterThan(results[0]!.length) // the note from the 3rd
  })

  it('compacts before a request when the context is over the threshold', async () => {
    const summaries: number[] = []
    const { model, calls } = scriptedModel([[...text('## Intent\nthe summary'), finish()], [...text('answer after compaction'), finish()]])
    const big = 'x'.repeat(40_000)
    const deps = turnDeps(model, {
      compaction: { settings: { window: 8_000, threshold: 0.8, keepSteps: 1 }, todos: () => [], onSummaryCall: () => summaries.push(1) }
    })
    deps.log.unshift(
      { type: 'user_message', turnId: 't0', text: big },
      { type: 'assistant_message', turnId: 't0', text: 'earlier answer', toolCalls: [] }
    )
    await expect(runTurn(deps)).resolves.toBe('completed')
    expect(summaries.length).toBeGreaterThanOrEqual(1)
    expect(of(deps.log, 'compaction_finished')).toHaveLength(1)
    // the model's request after compaction no longer carries the big message
    expect(JSON.stringify(calls.at(-1)!.prompt)).not.toContain(big)
    expect(of(deps.log, 'assistant_message').at(-1)).toMatchObject({ text: 'answer after compaction' })
  })

  it('a provider error ends the turn with the classified error and no assistant message', async () => {
    const err = new APICallError({ message: 'bad request: model not found', url: 'http://127.0.0.1/v1', requestBodyValues: {}, statusCode: 404, isRetryable: false })
    const { model } = scriptedModel([{ error: err }])
    const deps = turnDeps(model)
    await expect(runTurn(deps)).rejects.toMatchObject({ code: 'provider_error', message: expect.stringContaining('model not found') })
    expect(of(deps.log, 'assistant_message')).toHaveLength(0)
  })
})
