// Pure parts of compaction: the context size is the latest reported prompt plus what came since
// (never a sum), the window table and its override, the history rebuilt from the latest
// compaction (summary + keep-set + tail; masked results become stubs), the verification of a
// candidate, the keep-set's user messages to a budget, the "prompt too long" recognition.
import { APICallError } from 'ai'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../../shared/events'
import { CortexError } from '../../../shared/errors'
import { buildModelMessages } from '../history'
import { contextSize, contextWindowOf, parseContextWindow, parseThreshold } from './accounting'
import { COMPACTED_HEADING } from './context-text'
import { compactionSettingsFromEnv } from './settings'
import { diffArgv, insideWorkspace, keptUserMessages } from './keep-set'
import { planMask } from './masking'
import { countedAfterCompaction, isPromptTooLong } from './trigger'
import { messagesText, verifyCompaction } from './verify'

const big = 'x'.repeat(4000)
const turn = (n: number): SessionEvent[] => [
  { type: 'user_message', turnId: `t${n}`, text: `message ${n}` },
  { type: 'usage', turnId: `t${n}`, model: 'm', inputTokens: 1000 * n, cachedInputTokens: 900 * n, outputTokens: 50 },
  { type: 'assistant_message', turnId: `t${n}`, text: '', toolCalls: [{ callId: `c${n}`, name: 'read_file', args: { path: `f${n}.txt` } }] },
  { type: 'tool_call_finished', turnId: `t${n}`, callId: `c${n}`, name: 'read_file', isError: false, result: `${n}:${big}` },
  { type: 'assistant_message', turnId: `t${n}`, text: `done ${n}`, toolCalls: [] }
]

describe('accounting', () => {
  it('uses the latest reported input tokens (cached counted once) plus an estimate of what came since, never a sum', () => {
    const events = [...turn(1), ...turn(2)]
    const size = contextSize(events, 500)
    // latest usage reports 2000 input (1800 of them cached): 2000, not 3000 and not 3800; plus the 2 events after it
    expect(size.basis).toBe('reported')
    expect(size.tokens).toBeGreaterThan(2000 + 1000)
    expect(size.tokens).toBeLessThan(2000 + 1100)
  })

  it("skips a summariser's usage: its prompt is a transcript, not the context", () => {
    const events: SessionEvent[] = [...turn(1), { type: 'usage', turnId: 't1', model: 'm', inputTokens: 90_000, cachedInputTokens: 0, outputTokens: 10, purpose: 'summary' }]
    expect(contextSize(events, 500).tokens).toBeLessThan(3000) // 1000 reported + the result since, not 90 000
  })

  it('has a window table with an override, and validates the settings', () => {
    expect(contextWindowOf('claude-sonnet-4-5')).toBe(200_000)
    expect(contextWindowOf('gpt-4o-mini')).toBe(128_000)
    expect(contextWindowOf('qwen2.5-coder:7b')).toBe(32_768)
    expect(contextWindowOf('claude-sonnet-4-5', 50_000)).toBe(50_000)
    expect(parseContextWindow('64000')).toBe(64_000)
    expect(() => parseContextWindow('lots')).toThrow(CortexError)
    expect(parseThreshold(undefined)).toBe(0.8)
    expect(parseThreshold('90')).toBe(0.9)
    expect(() => parseThreshold('2000')).toThrow(/CORTEX_COMPACT_THRESHOLD/)
  })

  it('takes the saved settings unless the environment (or --context-window) sets them', () => {
    expect(compactionSettingsFromEnv('claude-x', {})).toMatchObject({ window: 200_000, threshold: 0.8 })
    expect(compactionSettingsFromEnv('claude-x', {}, { window: 50_000, threshold: 0.7 })).toMatchObject({ window: 50_000, threshold: 0.7 })
    expect(compactionSettingsFromEnv('claude-x', { CORTEX_CONTEXT_WINDOW: '30000', CORTEX_COMPACT_THRESHOLD: '90' }, { window: 50_000, threshold: 0.7 })).toMatchObject({ window: 30_000, threshold: 0.9 })
    expect(() => compactionSettingsFromEnv('m', { CORTEX_COMPACT_KEEP_STEPS: '-1' })).toThrow(/CORTEX_COMPACT_KEEP_STEPS/)
  })
})

describe('history after a compaction', () => {
  const keep = { userMessages: ['message 3'], todos: [{ content: 'parse', status: 'in_progress' as const }], files: [{ path: 'f3.txt', content: 'now' }], diff: '-a\n+b' }
  const summarised: SessionEvent = { type: 'compaction_finished', trigger: 'auto', method: 'summary', tokensBefore: 9000, tokensAfter: 900, summary: '## Intent\nread files', keep, tailEvents: 2 }

  it('starts from the summary and keep-set, then the tail and the events after it', () => {
    const events = [...turn(1), ...turn(2), ...turn(3), summarised, { type: 'user_message' as const, turnId: 't4', text: 'go on' }]
    const messages = buildModelMessages(events)
    const first = messages[0]!
    expect(first.role).toBe('user')
    expect(typeof first.content === 'string' && first.content.startsWith(COMPACTED_HEADING)).toBe(true)
    const text = messagesText(messages)
    expect(text).toContain('- [in_progress] parse')
    expect(text).toContain('### f3.txt')
    expect(text).not.toContain('1:xxx') // the first turns are summarised away
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'go on' })
  })

  it('masking keeps the last steps and replaces older results by stubs', () => {
    const events = [...turn(1), ...turn(2), ...turn(3)]
    const plan = planMask(events, new Set())
    expect(plan.savedTokens).toBeGreaterThan(1500)
    const masked: SessionEvent = { type: 'compaction_finished', trigger: 'auto', method: 'mask', tokensBefore: 9000, tokensAfter: 3000, summary: '', keep: { userMessages: [], todos: [], files: [] }, tailEvents: plan.tailEvents }
    const text = messagesText(buildModelMessages([...events, masked]))
    expect(text).toContain('result of read_file {"path":"f1.txt"} was masked')
    expect(text).toContain('3:xxx') // the last steps stay whole
    expect(text).toContain('message 1') // user messages are never masked
  })

  it('a compaction never grows the context, and the first count after one is what the loop guard reads', () => {
    const events = [...turn(1), ...turn(2), ...turn(3)]
    const c = summarised
    expect(verifyCompaction(events, c, 100, 10_000, 50).problems.join()).toMatch(/would not be smaller/)
    expect(countedAfterCompaction(events)).toBeUndefined()
    expect(countedAfterCompaction([...events, summarised])).toBeUndefined()
    const after = [...events, summarised, ...turn(40), ...turn(2)]
    expect(countedAfterCompaction(after)).toBe(40_000) // the first request after it, not the latest
  })

  it('verification finds a missing item and a context over the budget', () => {
    const events = [...turn(1), ...turn(2), ...turn(3)]
    const ok = verifyCompaction(events, summarised, 100, 10_000)
    expect(ok).toMatchObject({ ok: true })
    const tight = verifyCompaction(events, summarised, 100, 200)
    expect(tight.ok).toBe(false)
    expect(tight.problems.join()).toMatch(/not below the budget/)
  })
})

describe('keep-set helpers', () => {
  it('keeps the newest user messages to a budget, the latest whole', () => {
    const events: SessionEvent[] = ['a'.repeat(400), 'b'.repeat(400), 'c'.repeat(40_000)].map((text, i) => ({ type: 'user_message', turnId: `t${i}`, text }))
    expect(keptUserMessages(events, 150).map((m) => m[0])).toEqual(['b', 'c'])
  })

  it('keeps paths inside the workspace and out of .git; git diff runs nothing of the repository config', () => {
    expect(insideWorkspace('/r', 'a/b.txt')).toBe('/r/a/b.txt')
    expect(insideWorkspace('/r', '../etc/passwd')).toBeUndefined()
    expect(insideWorkspace('/r', '.git/config')).toBeUndefined()
    expect(diffArgv(['a'])).toEqual(expect.arrayContaining(['--no-ext-diff', '--no-textconv', 'core.fsmonitor=false', 'core.hooksPath=/dev/null']))
  })
})

describe('prompt too long', () => {
  it('recognises provider refusals by size, not other 400s', () => {
    const tooLong = new APICallError({ message: 'prompt is too long: 210000 tokens > 200000 maximum', url: 'u', requestBodyValues: {}, statusCode: 400, isRetryable: false })
    expect(isPromptTooLong(new CortexError('provider_error', 'x', { cause: tooLong }))).toBe(true)
    const other = new APICallError({ message: 'invalid tool schema', url: 'u', requestBodyValues: {}, statusCode: 400, isRetryable: false })
    expect(isPromptTooLong(other)).toBe(false)
  })
})
