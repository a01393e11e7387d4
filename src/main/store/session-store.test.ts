// Tests of the JSONL session store: round trip, damaged logs, metadata.
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../shared/events'
import { SessionStore, parseLog } from './session-store'
import { tempDir } from '../../../test/support/temp-dir'

const env = (seq: number, text: string): EventEnvelope => ({
  sessionId: 's1',
  seq,
  time: 1000 + seq,
  event: { type: 'user_message', turnId: 't1', text }
})

describe('SessionStore', () => {
  it('appends envelopes and loads them back in order', () => {
    const store = new SessionStore(tempDir('cortex-store-'))
    const log = store.create({ id: 's1', repo: '/r', mode: 'agent', createdAt: 1 })
    log.append(env(1, 'one'))
    log.append(env(2, 'two'))
    log.flush()
    log.close()
    expect(store.load('s1')).toEqual({ envelopes: [env(1, 'one'), env(2, 'two')], skipped: 0 })
    expect(store.list()).toEqual(['s1'])
    expect(store.readMeta('s1')?.repo).toBe('/r')
  })

  it('keeps every valid record of a damaged log and counts what it skipped', () => {
    const store = new SessionStore(tempDir('cortex-store-'))
    const log = store.create({ id: 's1', repo: '/r', mode: 'ask', createdAt: 1 })
    log.append(env(1, 'one'))
    log.close()
    const file = join(store.dir('s1'), 'events.jsonl')
    appendFileSync(file, '\0\0\0\0\n{"sessionId":"s1","seq":2,"ti')
    const reopened = store.openLog('s1')
    reopened.append(env(3, 'three'))
    reopened.close()
    // reopening starts a fresh line, so the record after the torn one survives
    const loaded = store.load('s1')
    expect(loaded.envelopes.map((e) => e.seq)).toEqual([1, 3])
    expect(loaded.skipped).toBe(2)
    expect(readFileSync(file, 'utf8')).toContain('"three"')
  })

  it('a NUL block in the middle of a line hides neither the record after it nor the count', () => {
    const store = new SessionStore(tempDir('cortex-store-'))
    store.create({ id: 's1', repo: '/r', mode: 'ask', createdAt: 1 }).close()
    const file = join(store.dir('s1'), 'events.jsonl')
    // a torn record, a zero-filled block, then a whole record on the same line (no newline between)
    const torn = JSON.stringify(env(2, 'torn')).slice(0, 20)
    writeFileSync(file, `${JSON.stringify(env(1, 'one'))}\n${torn}${'\0'.repeat(4096)}${JSON.stringify(env(3, 'three'))}\n${'\0'.repeat(512)}\n${JSON.stringify(env(4, 'four'))}\n`)
    const loaded = store.load('s1')
    expect(loaded.envelopes.map((e) => e.seq)).toEqual([1, 3, 4])
    expect(loaded.skipped).toBe(2) // the torn piece and the NUL-only line
  })

  it('a 0-byte log loads as empty; a rebuilt meta.json keeps the model connection and the last mode', () => {
    const store = new SessionStore(tempDir('cortex-store-'))
    store.create({ id: 's1', repo: '/r', mode: 'ask', createdAt: 1 }).close()
    const file = join(store.dir('s1'), 'events.jsonl')
    writeFileSync(file, '')
    expect(store.load('s1')).toEqual({ envelopes: [], skipped: 0 })
    const opened: EventEnvelope = {
      sessionId: 's1', seq: 1, time: 7,
      event: { type: 'session_opened', repo: '/r', mode: 'ask', provider: 'openai-compatible', model: 'm1', baseUrl: 'http://127.0.0.1:1/v1' }
    }
    const resumed: EventEnvelope = {
      sessionId: 's1', seq: 3, time: 9,
      event: { type: 'session_resumed', skipped: 0, interruptedCalls: 0, provider: 'anthropic', model: 'claude-sonnet-4-5' }
    }
    const switched: EventEnvelope = { sessionId: 's1', seq: 2, time: 8, event: { type: 'mode_changed', mode: 'agent' } }
    writeFileSync(file, [opened, switched, resumed].map((e) => JSON.stringify(e)).join('\n') + '\n')
    rmSync(join(store.dir('s1'), 'meta.json'))
    expect(store.readMeta('s1')).toEqual({ id: 's1', repo: '/r', mode: 'agent', createdAt: 7, provider: 'anthropic', model: 'claude-sonnet-4-5' })
  })

  it('rejects ids that could escape the sessions folder', () => {
    const store = new SessionStore(tempDir('cortex-store-'))
    expect(() => store.dir('../etc')).toThrow(/invalid session id/)
  })

  it('parseLog skips invalid JSON and schema-invalid records', () => {
    const text = `${JSON.stringify(env(1, 'a'))}\nnot json\n{"seq":"x"}\n${JSON.stringify(env(2, 'b'))}\n`
    const out = parseLog(text)
    expect(out.envelopes.map((e) => e.seq)).toEqual([1, 2])
    expect(out.skipped).toBe(2)
  })
})
