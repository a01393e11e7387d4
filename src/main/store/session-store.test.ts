// Tests of the JSONL session store: round trip, damaged logs, metadata.
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../shared/events'
import { SessionStore, parseLog } from './session-store'

const env = (seq: number, text: string): EventEnvelope => ({
  sessionId: 's1',
  seq,
  time: 1000 + seq,
  event: { type: 'user_message', turnId: 't1', text }
})

describe('SessionStore', () => {
  it('appends envelopes and loads them back in order', () => {
    const store = new SessionStore(mkdtempSync(join(tmpdir(), 'cortex-store-')))
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
    const store = new SessionStore(mkdtempSync(join(tmpdir(), 'cortex-store-')))
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

  it('rejects ids that could escape the sessions folder', () => {
    const store = new SessionStore(mkdtempSync(join(tmpdir(), 'cortex-store-')))
    expect(() => store.dir('../etc')).toThrow(/invalid session id/)
  })

  it('parseLog skips invalid JSON and schema-invalid records', () => {
    const text = `${JSON.stringify(env(1, 'a'))}\nnot json\n{"seq":"x"}\n${JSON.stringify(env(2, 'b'))}\n`
    const out = parseLog(text)
    expect(out.envelopes.map((e) => e.seq)).toEqual([1, 2])
    expect(out.skipped).toBe(2)
  })
})
