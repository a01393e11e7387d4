/**
 * Compaction: the harness's own time (no model, no guest) to build a model request from a session
 * of about 150k tokens (history rebuild with its validator, plus the context-size accounting done
 * before every request), and to prepare a compaction of it (masking plan, keep-set from the events,
 * elided transcript for the summariser, the candidate's verification = a second rebuild), and the
 * tokens before and after. Prints figures; never asserts.
 *   npx tsx bench/compaction.ts        BENCH_N samples (default 20), BENCH_TOKENS (default 150000)
 */
import type { SessionEvent } from '../src/shared/events'
import { buildModelMessages } from '../src/main/harness/history'
import { contextSize, estimateTokens, eventTokens } from '../src/main/harness/compaction/accounting'
import { acceptedPlan, keptUserMessages, DEFAULT_KEEP_BUDGET } from '../src/main/harness/compaction/keep-set'
import { planMask } from '../src/main/harness/compaction/masking'
import { compactedView } from '../src/main/harness/compaction/rebuild'
import { transcriptOf } from '../src/main/harness/compaction/summarise'
import { messagesText, verifyCompaction } from '../src/main/harness/compaction/verify'

const N = Number(process.env.BENCH_N ?? 20)
const TARGET = Number(process.env.BENCH_TOKENS ?? 150_000)
const FIXED = 6000 // system prompt and tools, tokens (estimate)

/** A session of read_file/bash steps (~2k-token results) until the history holds `TARGET` tokens. */
function session(): SessionEvent[] {
  const events: SessionEvent[] = []
  const file = Array.from({ length: 200 }, (_, i) => `${i + 1}\texport function step${i}(x: number): number { return x * ${i} + 1 }`).join('\n')
  let tokens = 0
  for (let t = 0; tokens < TARGET; t++) {
    const turnId = `t${t}`
    events.push({ type: 'user_message', turnId, text: `Step ${t}: refactor module ${t} and keep the tests green.` })
    for (let s = 0; s < 4; s++) {
      const callId = `c${t}_${s}`
      const args = s % 2 ? { command: `npm test -- module${t}` } : { path: `src/module${t}_${s}.ts` }
      events.push({ type: 'assistant_message', turnId, text: `Looking at part ${s}.`, toolCalls: [{ callId, name: s % 2 ? 'bash' : 'read_file', args }] })
      events.push({ type: 'tool_call_started', turnId, callId, name: s % 2 ? 'bash' : 'read_file', args })
      events.push({ type: 'tool_call_finished', turnId, callId, name: s % 2 ? 'bash' : 'read_file', isError: false, result: file })
    }
    events.push({ type: 'assistant_message', turnId, text: `Module ${t} done.`, toolCalls: [] })
    events.push({ type: 'todos_updated', todos: [{ content: `module ${t}`, status: 'completed' }, { content: `module ${t + 1}`, status: 'pending' }] })
    tokens = events.reduce((n, e) => n + eventTokens(e), 0)
  }
  return events
}

function time(fn: () => void): { p50: number; p90: number } {
  fn() // warm
  const xs: number[] = []
  for (let i = 0; i < N; i++) {
    const t0 = performance.now()
    fn()
    xs.push(performance.now() - t0)
  }
  xs.sort((a, b) => a - b)
  return { p50: xs[Math.floor(N / 2)]!, p90: xs[Math.floor(N * 0.9)]! }
}
const fmt = (r: { p50: number; p90: number }): string => `${r.p50.toFixed(1)} ms (p90 ${r.p90.toFixed(1)})`

const events = session()
const tokensBefore = FIXED + estimateTokens(messagesText(buildModelMessages(events)))
process.stdout.write(`session: ${events.length} events, ~${tokensBefore} tokens (history + ${FIXED} fixed)\n`)

const build = time(() => {
  contextSize(events, FIXED)
  buildModelMessages(events)
})
process.stdout.write(`build a request (accounting + history rebuild + validator): ${fmt(build)}   target ≤ 50 ms\n`)
const wire = time(() => {
  contextSize(events, FIXED)
  JSON.stringify(buildModelMessages(events))
})
process.stdout.write(`  the same plus serialising the messages to JSON (what the SDK then does): ${fmt(wire)}\n`)

let candidate: Extract<SessionEvent, { type: 'compaction_finished' }> | undefined
const prepare = time(() => {
  const view = compactedView(events)
  planMask(view.replay, view.masked)
  const keep = { userMessages: keptUserMessages(events, DEFAULT_KEEP_BUDGET.userTokens), todos: [], files: [], ...(acceptedPlan(events) ? { plan: acceptedPlan(events)! } : {}) }
  const transcript = transcriptOf(view.replay.slice(0, -12), view.lead)
  const summary = `## Intent\n${transcript.slice(0, 8000)}` // stands in for the model's answer (~2k tokens)
  candidate = { type: 'compaction_finished', trigger: 'auto', method: 'summary', tokensBefore, tokensAfter: 0, summary, keep, tailEvents: 8 }
  verifyCompaction(events, candidate, FIXED, 160_000)
})
process.stdout.write(`prepare a compaction (mask plan, keep-set, elided transcript, verification): ${fmt(prepare)}   target ≤ 50 ms\n`)

const after = [...events, { ...candidate!, tokensAfter: 0 }]
const tokensAfter = FIXED + estimateTokens(messagesText(buildModelMessages(after)))
const mask = planMask(events, new Set())
process.stdout.write(`tokens: before ~${tokensBefore}, masking alone would save ~${mask.savedTokens}, after the summary ~${tokensAfter}\n`)
const rebuilt = time(() => buildModelMessages(after))
process.stdout.write(`build a request after the compaction: ${fmt(rebuilt)}\n`)
