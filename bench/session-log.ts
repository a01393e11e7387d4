/**
 * Session log loading at sizes past V8's longest string (~512 MiB): write a log of N MiB (default
 * 600) of tool calls with 5 MiB arguments (as logs written before the 1 MiB argument cap were) plus
 * small events, then time SessionStore.load (chunked stream, over-cap arguments truncated as they
 * load) and report the main process's RSS and heap after it. Baseline: reading the same file into
 * one string, which fails past the limit. No Docker needed. Prints figures; never asserts.
 *   npx tsx bench/session-log.ts        BENCH_LOG_MIB=600 by default
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionStore } from '../src/main/store/session-store'

const MIB = 1024 * 1024
const targetMib = Number(process.env.BENCH_LOG_MIB ?? 600)
const data = mkdtempSync(join(tmpdir(), 'cortex-bench-log-'))
const mem = (): string => {
  const m = process.memoryUsage()
  return `RSS ${(m.rss / MIB).toFixed(0)} MiB, heap ${(m.heapUsed / MIB).toFixed(0)} MiB`
}
try {
  const store = new SessionStore(data)
  store.create({ id: 'big', repo: '/repo', mode: 'agent', createdAt: 1 }).close()
  const file = join(store.dir('big'), 'events.jsonl')
  const fd = openSync(file, 'a')
  const content = 'q'.repeat(5 * MIB)
  let seq = 0
  const line = (event: unknown): string => JSON.stringify({ sessionId: 'big', seq: ++seq, time: 1, event }) + '\n'
  let t0 = performance.now()
  for (let i = 0; statSync(file).size < targetMib * MIB; i++) {
    writeSync(fd, line({ type: 'user_message', turnId: `t${i}`, text: `part ${i}` }))
    writeSync(fd, line({ type: 'assistant_message', turnId: `t${i}`, text: '', toolCalls: [{ callId: `c${i}`, name: 'write_file', args: { path: 'a', content } }] }))
    writeSync(fd, line({ type: 'tool_call_finished', turnId: `t${i}`, callId: `c${i}`, name: 'write_file', isError: false, result: 'ok' }))
  }
  closeSync(fd)
  const size = statSync(file).size
  process.stdout.write(`log written: ${(size / MIB).toFixed(0)} MiB, ${seq} events in ${(performance.now() - t0).toFixed(0)} ms; ${mem()}\n`)
  t0 = performance.now()
  const loaded = store.load('big')
  ;(globalThis as { gc?: () => void }).gc?.()
  process.stdout.write(`SessionStore.load (streamed): ${(performance.now() - t0).toFixed(0)} ms, ${loaded.envelopes.length} events, ${loaded.skipped} skipped; ${mem()}\n`)
  t0 = performance.now()
  try {
    readFileSync(file, 'utf8')
    process.stdout.write(`baseline readFileSync(utf8): ${(performance.now() - t0).toFixed(0)} ms\n`)
  } catch (err) {
    process.stdout.write(`baseline readFileSync(utf8): fails after ${(performance.now() - t0).toFixed(0)} ms: ${(err as Error).message}\n`)
  }
} finally {
  rmSync(data, { recursive: true, force: true })
}
