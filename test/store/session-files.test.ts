// The session store's bounds against real files and real processes: a streamed log reader that
// holds at most one chunk plus one line, meta.json rebuilt from the log, private modes (old files
// included), and a per-session lock that a second process is refused by and a kill -9 cannot leave stuck.
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../src/shared/events'
import { forEachLine } from '../../src/main/store/log-reader'
import { LOCK_FILE, processStartTime } from '../../src/main/store/session-lock'
import { SessionStore, loadLogFile } from '../../src/main/store/session-store'
import { tempDir } from '../support/temp-dir'

const env = (seq: number, text: string): EventEnvelope => ({ sessionId: 's1', seq, time: 1000 + seq, event: { type: 'user_message', turnId: 't', text } })
const tmp = (): string => tempDir('cortex-files-')
const mode = (path: string): number => statSync(path).mode & 0o777

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
})

/** Start a real process that takes session `id`'s lock; resolves once it holds it. */
async function holder(dataDir: string, id: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../support/hold-session-lock.ts'), dataDir, id], {
    cwd: join(__dirname, '../..'),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  children.push(child)
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().startsWith('locked')) resolve()
    })
    child.on('exit', (code) => reject(new Error(`lock holder exited (${code}): ${err}`)))
  })
  return child
}

describe('streamed log reader', () => {
  it('yields every line and holds at most one chunk plus one partial line', () => {
    const dir = tmp()
    const file = join(dir, 'lines.jsonl')
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i} ${'z'.repeat(i % 97)}`)
    writeFileSync(file, lines.join('\n')) // the last line has no newline
    const seen: string[] = []
    const stats = forEachLine(file, (l) => void seen.push(l), { chunkBytes: 256, maxLineBytes: 1024 })
    expect(seen).toEqual(lines)
    expect(stats.maxHeldBytes).toBeLessThanOrEqual(256 + 1024)
    expect(stats.overlong).toBe(0)
  })

  it('skips a line over the cap without buffering it, keeps the rest, and can stop early', () => {
    const dir = tmp()
    const file = join(dir, 'events.jsonl')
    const huge = JSON.stringify(env(2, 'h'.repeat(50_000)))
    writeFileSync(file, [JSON.stringify(env(1, 'a')), huge, JSON.stringify(env(3, 'c')), ''].join('\n'))
    const loaded = loadLogFile(file, { chunkBytes: 512, maxLineBytes: 4096 })
    expect(loaded.envelopes.map((e) => e.seq)).toEqual([1, 3])
    expect(loaded.skipped).toBe(1)
    const stats = forEachLine(file, () => undefined, { chunkBytes: 512, maxLineBytes: 4096 })
    expect(stats.maxHeldBytes).toBeLessThanOrEqual(512 + 4096)
    let n = 0
    forEachLine(file, () => ++n < 2, { chunkBytes: 512 })
    expect(n).toBe(2)
  })
})

describe('session metadata', () => {
  for (const [what, content] of [['0-byte', ''], ['damaged', '{"id": "s1", "re'], ['schema-invalid', '{"id": 3}']] as const) {
    it(`rebuilds a ${what} meta.json from the log's session_opened event`, () => {
      const store = new SessionStore(tmp())
      const log = store.create({ id: 's1', repo: '/repo/a', mode: 'plan', createdAt: 5 })
      log.append({ sessionId: 's1', seq: 1, time: 1234, event: { type: 'session_opened', repo: '/repo/a', mode: 'plan', sandbox: 'read-only' } })
      log.append(env(2, 'hi'))
      log.close()
      const metaFile = join(store.dir('s1'), 'meta.json')
      writeFileSync(metaFile, content)
      expect(store.readMeta('s1')).toEqual({ id: 's1', repo: '/repo/a', mode: 'plan', createdAt: 1234 })
      expect(JSON.parse(readFileSync(metaFile, 'utf8'))).toMatchObject({ repo: '/repo/a' })
      expect(store.list()).toEqual(['s1'])
    })
  }

  it('gives null when neither meta.json nor a session_opened event exists', () => {
    const store = new SessionStore(tmp())
    store.create({ id: 's1', repo: '/r', mode: 'agent', createdAt: 1 }).close()
    writeFileSync(join(store.dir('s1'), 'meta.json'), '')
    expect(store.readMeta('s1')).toBeNull()
  })
})

describe('session file modes', () => {
  it('creates folders 0700 and files 0600, and makes older, wider ones private when opened', () => {
    const data = tmp()
    const store = new SessionStore(data)
    const log = store.create({ id: 's1', repo: '/r', mode: 'agent', createdAt: 1 })
    log.append(env(1, 'x'))
    log.close()
    const dir = store.dir('s1')
    expect(mode(join(data, 'sessions'))).toBe(0o700)
    expect(mode(dir)).toBe(0o700)
    expect(mode(join(dir, 'meta.json'))).toBe(0o600)
    expect(mode(join(dir, 'events.jsonl'))).toBe(0o600)
    // as an older version left them
    chmodSync(join(data, 'sessions'), 0o755)
    chmodSync(dir, 0o755)
    chmodSync(join(dir, 'meta.json'), 0o644)
    chmodSync(join(dir, 'events.jsonl'), 0o644)
    const again = new SessionStore(data)
    again.openLog('s1').close()
    expect([join(data, 'sessions'), dir].map(mode)).toEqual([0o700, 0o700])
    expect([join(dir, 'meta.json'), join(dir, 'events.jsonl')].map(mode)).toEqual([0o600, 0o600])
  })
})

describe('session lock', () => {
  it('refuses a second open in this process until the first is closed', () => {
    const store = new SessionStore(tmp())
    const log = store.create({ id: 's1', repo: '/r', mode: 'agent', createdAt: 1 })
    expect(() => store.openLog('s1')).toThrow(expect.objectContaining({ code: 'session_locked', message: expect.stringContaining('this process') }))
    log.close()
    store.openLog('s1').close()
  })

  it('refuses while another live process holds it; after that process is killed with -9 the lock is taken over', async () => {
    const data = tmp()
    const store = new SessionStore(data)
    store.create({ id: 's1', repo: '/r', mode: 'agent', createdAt: 1 }).close()
    const child = await holder(data, 's1')
    const lock = JSON.parse(readFileSync(join(store.dir('s1'), LOCK_FILE), 'utf8')) as { pid: number }
    expect(lock.pid).toBe(child.pid)
    expect(() => store.openLog('s1')).toThrow(expect.objectContaining({ code: 'session_locked', message: expect.stringContaining(`process ${child.pid}`) }))
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGKILL')
    await exited
    const log = store.openLog('s1')
    log.append(env(1, 'after the crash'))
    log.close()
    expect(store.load('s1').envelopes).toHaveLength(1)
  })

  it('treats a lock whose pid now belongs to another process (different start time) as stale', () => {
    const store = new SessionStore(tmp())
    store.create({ id: 's1', repo: '/r', mode: 'agent', createdAt: 1 }).close()
    const own = JSON.stringify({ pid: process.pid, start: String(Number(processStartTime(process.pid) ?? '0') + 1), host: hostname(), token: 'old' })
    const lockPath = join(store.dir('s1'), LOCK_FILE)
    writeFileSync(lockPath, own)
    const log = store.openLog('s1') // would throw session_locked if the old owner counted as alive
    const holder = JSON.parse(readFileSync(lockPath, 'utf8')) as { pid: number; start: string | null; token: string }
    expect(holder.token).not.toBe('old') // the stale lock was taken over, not kept
    expect(holder).toMatchObject({ pid: process.pid, start: processStartTime(process.pid) })
    log.append(env(1, 'after the takeover'))
    log.close()
    expect(store.load('s1').envelopes).toHaveLength(1)
  })
})
