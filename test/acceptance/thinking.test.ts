// Thinking and reasoning through the built CLI, a real guest and the scripted model server, over
// each provider's real HTTP client (ADR 0024): Anthropic is asked for extended thinking and gets a
// signed thinking block and a redacted one back unchanged, first in the assistant message, on the
// next step and after a resume; OpenAI Responses gets the reasoning effort, `store: false` and the
// encrypted reasoning item carried to the next step; an OpenAI-compatible server's
// `reasoning_content` and `<think>` block become reasoning rows and are never sent back.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

type Obj = Record<string, unknown>
const READ = { name: 'read_file', args: { path: 'src/app.ts' } }

/** The events of one type from a --json run. */
function ofType<T extends SessionEvent['type']>(events: EventEnvelope[], type: T): Array<Extract<SessionEvent, { type: T }>> {
  return events.map((e) => e.event).filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type)
}

/** The assistant messages of an Anthropic request body. */
function anthropicAssistant(body: unknown): Array<{ content: Obj[] }> {
  return ((body as { messages: Array<{ role: string; content: Obj[] }> }).messages).filter((m) => m.role === 'assistant')
}

describe.skipIf(skipWithoutDocker())('thinking and reasoning', () => {
  const home = mkdtempSync(join(tmpdir(), 'cortex-thinking-home-'))
  const env = { CORTEX_HOME: home, CORTEX_WARM_POOL: '0', ANTHROPIC_API_KEY: 'sk-test', OPENAI_API_KEY: 'sk-test', CORTEX_API_KEY: 'sk-test' }
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })
  afterAll(() => rmSync(home, { recursive: true, force: true }))

  it('Anthropic: thinking asked for; the signed and the redacted block go back first, unchanged, on the next step and after resume', async () => {
    const repo = await makeTestRepo({ 'src/app.ts': 'export const a = 1\n' })
    const thinking = { text: 'The user wants the file. I will read it.', signature: 'SIG-abc123==', redactedData: 'REDACTED-opaque-xyz' }
    server = await startScriptedModelServer([
      { reasoning: thinking, toolCalls: [READ] },
      { text: 'It exports a.' },
      { text: 'Still a.' }
    ])
    const model = ['--provider', 'anthropic', '--base-url', server.baseUrl, '--model', 'claude-sonnet-4-5']
    const first = await runCli(['run', '--repo', repo, ...model, '--thinking', 'high', '--json', 'read src/app.ts'], { env })
    expect(first.code, first.stderr).toBe(0)
    const [req0, req1] = server.requests
    expect((req0!.body as Obj).thinking).toEqual({ type: 'enabled', budget_tokens: 32_000 })
    expect((req0!.body as Obj).max_tokens).toBe(64_000) // the model's cap from the table, the budget inside it
    const sentBack = (body: unknown): Obj[] => anthropicAssistant(body)[0]!.content
    const expected = [
      { type: 'thinking', thinking: thinking.text, signature: thinking.signature },
      { type: 'redacted_thinking', data: thinking.redactedData }
    ]
    expect(sentBack(req1!.body).slice(0, 2)).toEqual(expected)
    expect(sentBack(req1!.body)[2]).toMatchObject({ type: 'tool_use', name: 'read_file' })
    const done = ofType(first.events, 'reasoning_done')
    expect(done).toHaveLength(1)
    expect(done[0]).toMatchObject({ text: thinking.text, redacted: true })
    expect(done[0]!.durationMs).toBeGreaterThanOrEqual(0)
    expect(ofType(first.events, 'reasoning_delta').map((e) => e.text).join('')).toBe(thinking.text)
    expect(ofType(first.events, 'thinking_changed')).toEqual([{ type: 'thinking_changed', level: 'high' }])

    // resume: the blocks come from the session log, and the session keeps its level
    const sessionId = first.events[0]!.sessionId
    const second = await runCli(['run', '--resume', sessionId, '--json', 'and now?'], { env })
    expect(second.code, second.stderr).toBe(0)
    const req2 = server.requests[2]!
    expect(sentBack(req2.body).slice(0, 2)).toEqual(expected)
    expect((req2.body as Obj).thinking).toEqual({ type: 'enabled', budget_tokens: 32_000 })
  }, 240_000)

  it('OpenAI Responses: effort and summaries asked for, nothing stored, the encrypted reasoning item carried to the next step', async () => {
    const repo = await makeTestRepo({ 'src/app.ts': 'export const a = 1\n' })
    server = await startScriptedModelServer([
      { reasoning: { text: 'Plan: read the file first.', encrypted: 'ENC-gAAAA-opaque' }, toolCalls: [READ], usage: { input: 50, output: 40, reasoning: 30 } },
      { text: 'It exports a.' }
    ])
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai', '--base-url', server.baseUrl, '--model', 'gpt-5', '--thinking', 'low', '--json', 'read it'], { env })
    expect(run.code, run.stderr).toBe(0)
    const [req0, req1] = server.requests.map((r) => r.body as Obj)
    expect(req0!.reasoning).toEqual({ effort: 'low', summary: 'auto' })
    expect(req0!.store).toBe(false)
    expect(req0!.include).toContain('reasoning.encrypted_content')
    const input = req1!.input as Obj[]
    const at = input.findIndex((i) => i.type === 'reasoning')
    expect(input[at]).toMatchObject({ type: 'reasoning', encrypted_content: 'ENC-gAAAA-opaque', summary: [{ type: 'summary_text', text: 'Plan: read the file first.' }] })
    expect(input[at + 1]).toMatchObject({ type: 'function_call', name: 'read_file' }) // the item goes back right before its call
    expect(ofType(run.events, 'reasoning_done')[0]).toMatchObject({ text: 'Plan: read the file first.' })
    expect(ofType(run.events, 'usage')[0]).toMatchObject({ outputTokens: 40, reasoningTokens: 30 })
    expect(ofType(run.events, 'turn_ended')[0]!.usage).toMatchObject({ reasoningTokens: 30 })
  }, 240_000)

  it('OpenAI-compatible: reasoning_content and a <think> block become reasoning rows and are never sent back', async () => {
    const repo = await makeTestRepo({ 'src/app.ts': 'export const a = 1\n' })
    server = await startScriptedModelServer([
      { reasoning: { text: 'PRIVATE-THOUGHT about the file' }, text: 'Reading it.', toolCalls: [READ] },
      { reasoning: { text: 'TAGGED-THOUGHT checking', thinkTags: true }, text: 'It exports a.', toolCalls: [READ] },
      { text: 'Done.' }
    ])
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'qwen3-coder', '--json', 'read it'], { env })
    expect(run.code, run.stderr).toBe(0)
    expect(ofType(run.events, 'reasoning_done').map((e) => e.text)).toEqual(['PRIVATE-THOUGHT about the file', 'TAGGED-THOUGHT checking'])
    expect(ofType(run.events, 'assistant_message').map((e) => e.text)).toEqual(['Reading it.', 'It exports a.', 'Done.'])
    for (const req of server.requests.slice(1)) {
      const text = JSON.stringify(req.body)
      expect(text).not.toContain('PRIVATE-THOUGHT')
      expect(text).not.toContain('TAGGED-THOUGHT')
      expect(text).not.toContain('reasoning_content')
    }
    // and on a terminal-less text run the reasoning is one collapsed row with its duration
    server = await startScriptedModelServer([{ reasoning: { text: 'PRIVATE-THOUGHT again' }, text: 'Hello.' }])
    const text = await runCli(['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'qwen3-coder', 'hi'], { env })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/Thought for \d+\.\d s/)
    expect(text.stdout).not.toContain('PRIVATE-THOUGHT')
    expect(text.stdout).toContain('Hello.')
  }, 240_000)

  it('a level a model cannot honour is refused with a clear error before any request', async () => {
    const repo = await makeTestRepo({ 'src/app.ts': 'export const a = 1\n' })
    server = await startScriptedModelServer([{ text: 'never asked' }])
    const run = await runCli(['run', '--repo', repo, '--provider', 'openai', '--base-url', server.baseUrl, '--model', 'gpt-4o', '--thinking', 'high', 'hi'], { env })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('error: openai model gpt-4o does not support thinking')
    expect(server.requests).toHaveLength(0)
    const bad = await runCli(['run', '--repo', repo, '--thinking', 'lots', 'hi'], { env })
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('expected one of off, low, medium, high')
  }, 120_000)
})
