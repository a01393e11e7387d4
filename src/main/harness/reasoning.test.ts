// Reasoning in the history: blocks collected from stream parts with their metadata merged verbatim,
// one row per stretch, and replayed first in their assistant message, to their own provider only,
// also from the verbatim tail of a summary compaction.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../shared/events'
import type { ReasoningBlock } from '../../shared/thinking'
import { buildModelMessages } from './history'
import { ReasoningCollector, type ReasoningSegment } from './reasoning'

const SIGNED: ReasoningBlock = { text: 'I will read it.', providerMetadata: { anthropic: { signature: 'SIG' } } }
const REDACTED: ReasoningBlock = { text: '', providerMetadata: { anthropic: { redactedData: 'OPAQUE' } } }
const LOCAL: ReasoningBlock = { text: 'a local model thinking' }

const step = (turnId: string, reasoning: ReasoningBlock[]): SessionEvent[] => [
  { type: 'user_message', turnId, text: 'read a.ts' },
  { type: 'assistant_message', turnId, text: 'Reading.', toolCalls: [{ callId: `c-${turnId}`, name: 'read_file', args: { path: 'a.ts' } }], reasoning },
  { type: 'tool_call_finished', turnId, callId: `c-${turnId}`, name: 'read_file', isError: false, result: 'x' }
]

/** The assistant message's parts, as types. */
function assistantParts(events: SessionEvent[], replayTo?: string): Array<Record<string, unknown>> {
  const m = buildModelMessages(events, undefined, replayTo).find((x) => x.role === 'assistant')
  if (!m || typeof m.content === 'string') throw new Error('no assistant parts')
  return m.content as Array<Record<string, unknown>>
}

describe('reasoning in the history', () => {
  it('collects blocks, merges metadata without letting a null overwrite, and reports each stretch once', () => {
    let t = 1000
    const deltas: string[] = []
    const done: ReasoningSegment[] = []
    const c = new ReasoningCollector((d) => deltas.push(d), (s) => done.push(s), () => (t += 100))
    c.add({ type: 'reasoning-start', id: 'r1', providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: null } } })
    c.add({ type: 'reasoning-delta', id: 'r1', text: 'Plan', providerMetadata: { openai: { itemId: 'rs_1' } } })
    c.add({ type: 'reasoning-end', id: 'r1', providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'ENC' } } })
    c.finish()
    c.finish() // a second call reports nothing
    expect(deltas).toEqual(['', 'Plan'])
    expect(done).toEqual([{ text: 'Plan', durationMs: 200, redacted: false }])
    expect(c.result()!.blocks).toEqual([{ text: 'Plan', providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'ENC' } } }])
  })

  it('replays the signed and redacted blocks first, to Anthropic only; a block without metadata never', () => {
    const events = step('t1', [SIGNED, REDACTED, LOCAL])
    const parts = assistantParts(events, 'anthropic')
    expect(parts.map((p) => p.type)).toEqual(['reasoning', 'reasoning', 'text', 'tool-call'])
    expect(parts[0]).toEqual({ type: 'reasoning', text: SIGNED.text, providerOptions: { anthropic: { signature: 'SIG' } } })
    expect(parts[1]).toEqual({ type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'OPAQUE' } } })
    expect(assistantParts(events, 'openai').map((p) => p.type)).toEqual(['text', 'tool-call'])
    expect(assistantParts(events).map((p) => p.type)).toEqual(['text', 'tool-call'])
  })

  it('keeps the blocks of the verbatim tail after a summary compaction', () => {
    const events: SessionEvent[] = [
      ...step('t1', [{ ...SIGNED, providerMetadata: { anthropic: { signature: 'OLD' } } }]),
      ...step('t2', [SIGNED]),
      {
        type: 'compaction_finished', trigger: 'auto', method: 'summary', tokensBefore: 100, tokensAfter: 10, summary: 'the story so far',
        keep: { userMessages: [], todos: [], files: [] }, tailEvents: 3
      }
    ]
    const messages = buildModelMessages(events, undefined, 'anthropic')
    expect(messages[0]).toMatchObject({ role: 'user' }) // the summary
    const assistants = messages.filter((m) => m.role === 'assistant')
    expect(assistants).toHaveLength(1)
    expect(JSON.stringify(assistants[0])).toContain('"signature":"SIG"')
    expect(JSON.stringify(messages)).not.toContain('OLD')
  })

  it('drops a block cut before its signature, and a message left with reasoning alone', () => {
    const unsigned: ReasoningBlock = { text: 'cut off', providerMetadata: { anthropic: {} } }
    const events: SessionEvent[] = [
      { type: 'user_message', turnId: 't1', text: 'think' },
      { type: 'assistant_message', turnId: 't1', text: '', toolCalls: [], reasoning: [SIGNED] },
      { type: 'user_message', turnId: 't2', text: 'again' },
      { type: 'assistant_message', turnId: 't2', text: 'ok', toolCalls: [], reasoning: [unsigned] }
    ]
    const messages = buildModelMessages(events, undefined, 'anthropic')
    expect(messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant'])
    expect(messages[2]!.content).toEqual([{ type: 'text', text: 'ok' }])
  })
})
