/**
 * Renderer performance through the web host in Chromium (playwright-core + Chromium's performance
 * APIs): the real web host and the built renderer, over an in-bench session API that serves a
 * synthetic session and pushes events (the renderer is what is measured, not the model or the guest).
 * Prints: first paint of a session with 10,000 timeline events (navigation start → rows painted),
 * the longest frame while 2,000 text deltas per second stream, the JS heap after replaying 10,000
 * events over an empty session (after a forced GC), and the longest frame during a 200 MB bash flood
 * with the Terminal tab open. Needs Chromium (/usr/bin/chromium) and `npm run build`.
 *
 *   npx tsx bench/renderer.ts        # BENCH_N runs of each (default 3); BENCH_FLOOD_MB (default 200)
 */
import type { Page } from 'playwright-core'
import { createApiStub, type CortexApi, type RequestName, type SessionInfo } from '../src/shared/contract'
import { CortexError } from '../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../src/shared/events'
import { startWebHost } from '../src/web'
import { ensureRendererBuild, launchChromium, RENDERER_DIR } from '../e2e/support/browser'
import { pct } from './support'

const N = Number(process.env.BENCH_N ?? 3)
const FLOOD_MB = Number(process.env.BENCH_FLOOD_MB ?? 200)

/** A synthetic session history of about `count` persisted events: turns of 7 events each. */
function history(sessionId: string, count: number): EventEnvelope[] {
  const events: SessionEvent[] = [{ type: 'session_opened', repo: '/tmp/bench-repo', mode: 'agent' }]
  for (let t = 0; events.length < count; t++) {
    const turnId = `t${t}`
    events.push(
      { type: 'user_message', turnId, text: `Question ${t}: what does module ${t} do?` },
      { type: 'turn_started', turnId, mode: 'agent' },
      { type: 'assistant_message', turnId, text: `Let me look at **module ${t}**.`, toolCalls: [{ callId: `c${t}`, name: 'glob', args: { pattern: `src/m${t}/**` } }] },
      { type: 'tool_call_started', turnId, callId: `c${t}`, name: 'glob', args: { pattern: `src/m${t}/**` } },
      { type: 'tool_call_finished', turnId, callId: `c${t}`, name: 'glob', isError: false, result: `src/m${t}/index.ts\nsrc/m${t}/util.ts` },
      { type: 'assistant_message', turnId, text: `Module ${t} has:\n\n- \`index.ts\`: the entry\n- \`util.ts\`: helpers\n\nNothing else.`, toolCalls: [] },
      { type: 'turn_ended', turnId, reason: 'completed', usage: { inputTokens: 1200, cachedInputTokens: 0, outputTokens: 80, costUsd: 0.0042, requests: 2 } }
    )
  }
  const t0 = Date.now() - events.length * 10
  return events.slice(0, count).map((event, i) => ({ sessionId, seq: i + 1, time: t0 + i * 10, event }))
}

/** The in-bench session API: one session listed at a time, its history, and events pushed at will. */
function benchApi() {
  const listeners = new Set<(e: EventEnvelope) => void>()
  const histories = new Map<string, EventEnvelope[]>()
  const seqs = new Map<string, number>()
  let current: SessionInfo | null = null
  /** When the page last asked for a history (ms since the epoch). */
  const state = { historyAt: 0 }
  const api: CortexApi = createApiStub(
    async (name: RequestName, input: unknown) => {
      const sessionId = (input as { sessionId?: string } | undefined)?.sessionId
      switch (name) {
        case 'listSessions':
          return current ? [current] : []
        case 'sessionEvents':
          state.historyAt = Date.now()
          return histories.get(sessionId ?? '') ?? []
        case 'listStoredSessions':
          return []
        case 'submit':
          return { ok: true }
        default:
          throw new CortexError('session_not_found', `${name} is not served by the bench`)
      }
    },
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    }
  )
  return {
    api,
    state,
    /** List only session `id` with `events` as its history. */
    show(id: string, events: EventEnvelope[]) {
      histories.set(id, events)
      seqs.set(id, events.length)
      current = { id, repo: '/tmp/bench-repo', mode: 'agent', sandbox: 'workspace-write', createdAt: Date.now(), running: false }
    },
    emit(id: string, event: SessionEvent) {
      const seq = (seqs.get(id) ?? 0) + 1
      seqs.set(id, seq)
      const envelope = { sessionId: id, seq, time: Date.now(), event }
      for (const l of listeners) l(envelope)
    }
  }
}

/**
 * Start recording frame gaps (rAF to rAF) in the page; `stop` returns the longest gap (ms). The
 * page code is a string: tsx's name-keeping helpers do not exist in the page.
 */
async function frameRecorder(page: Page): Promise<{ stop(): Promise<{ longest: number; frames: number }> }> {
  await page.evaluate(`(() => {
    const f = (window.__frames = { longest: 0, frames: 0, last: performance.now(), on: true })
    const tick = (now) => {
      if (!f.on) return
      f.longest = Math.max(f.longest, now - f.last)
      f.frames++
      f.last = now
      requestAnimationFrame(tick)
    }
    requestAnimationFrame(tick)
  })()`)
  return {
    stop: () => page.evaluate(`(() => { const f = window.__frames; f.on = false; return { longest: f.longest, frames: f.frames } })()`)
  }
}

/** JS heap in use after a forced garbage collection (bytes). */
async function heapAfterGc(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('HeapProfiler.collectGarbage')
  await cdp.send('HeapProfiler.collectGarbage')
  const { usedSize } = await cdp.send('Runtime.getHeapUsage')
  await cdp.detach()
  return usedSize
}

/** Load the app and wait until the session's rows are painted (the last turn's footer visible); ms since navigation start. */
async function loadSession(page: Page, url: string, rows: boolean): Promise<number> {
  await page.goto(url)
  await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor({ timeout: 30_000 })
  if (rows) await page.getByTestId('turn-end').last().waitFor({ timeout: 60_000 })
  else await page.getByTestId('timeline').waitFor()
  // one more frame: the rows are on screen
  return page.evaluate('new Promise((r) => requestAnimationFrame(() => r(performance.now())))')
}

const fmt = (xs: number[], unit = 'ms'): string => `${pct(xs, 50).toFixed(1)} ${unit} (max ${Math.max(...xs).toFixed(1)})`

async function main(): Promise<void> {
  ensureRendererBuild()
  const bench = benchApi()
  const host = await startWebHost({ api: bench.api, rendererDir: RENDERER_DIR, port: 0, maxPayload: 4 * 1024 * 1024 })
  const browser = await launchChromium()
  const out: string[] = []
  try {
    const big = history('s-big', 10_000)
    // 1. first paint of a 10,000-event session
    const paints: number[] = []
    const afterHistory: number[] = []
    for (let i = 0; i < N; i++) {
      bench.show('s-big', big)
      const page = await browser.context.newPage()
      const painted = await loadSession(page, host.url, true)
      paints.push(painted)
      const origin = await page.evaluate<number>('performance.timeOrigin')
      afterHistory.push(painted - (bench.state.historyAt - origin))
      const dom = await page.locator('.timeline-item').count()
      if (i === 0) out.push(`  (rows in the DOM: ${dom} of ${big.length} events)`)
      await page.close()
    }
    out.unshift(`first paint, session of 10,000 events       ${fmt(paints)}   target ≤ 500 ms`)
    out.push(`  of which: history asked → rows painted    ${fmt(afterHistory)}`)
    // baselines: an empty session's first paint, and the longest frame of an idle page over 3 s
    const emptyPaints: number[] = []
    const idle: number[] = []
    for (let i = 0; i < N; i++) {
      bench.show('s-empty', [{ sessionId: 's-empty', seq: 1, time: Date.now(), event: { type: 'session_opened', repo: '/tmp/bench-repo', mode: 'agent' } }])
      const page = await browser.context.newPage()
      emptyPaints.push(await loadSession(page, host.url, false))
      await page.waitForTimeout(500)
      const rec = await frameRecorder(page)
      await page.waitForTimeout(3000)
      idle.push((await rec.stop()).longest)
      await page.close()
    }
    out.push(`  baseline: first paint of an empty session  ${fmt(emptyPaints)}`)
    out.push(`  baseline: longest frame of an idle page    ${fmt(idle)}`)

    // 3. heap: empty session vs 10,000 events replayed
    const heaps: number[] = []
    for (let i = 0; i < N; i++) {
      bench.show('s-empty', [{ sessionId: 's-empty', seq: 1, time: Date.now(), event: { type: 'session_opened', repo: '/tmp/bench-repo', mode: 'agent' } }])
      const page = await browser.context.newPage()
      await loadSession(page, host.url, false)
      await page.waitForTimeout(500)
      const empty = await heapAfterGc(page)
      await page.close()
      bench.show('s-big', big)
      const page2 = await browser.context.newPage()
      await loadSession(page2, host.url, true)
      await page2.waitForTimeout(500)
      const full = await heapAfterGc(page2)
      await page2.close()
      heaps.push((full - empty) / 1024 / 1024)
    }
    out.push(`heap after replaying 10,000 events           +${fmt(heaps, 'MB')} over an empty session   target ≤ +50 MB`)

    // 2. streaming 2,000 text deltas per second for 3 s into the 10,000-event session
    const streams: number[] = []
    for (let i = 0; i < N; i++) {
      bench.show('s-big', big)
      const page = await browser.context.newPage()
      await loadSession(page, host.url, true)
      const turnId = `live${i}`
      bench.emit('s-big', { type: 'turn_started', turnId, mode: 'agent' })
      const rec = await frameRecorder(page)
      const start = Date.now()
      let sent = 0
      while (Date.now() - start < 3000) {
        const due = Math.floor(((Date.now() - start) / 1000) * 2000)
        for (; sent < due; sent++) bench.emit('s-big', { type: 'text_delta', turnId, text: sent % 40 === 39 ? 'word.\n\n' : 'word ' })
        await new Promise((r) => setTimeout(r, 5))
      }
      await page.waitForTimeout(300)
      const { longest } = await rec.stop()
      streams.push(longest)
      await page.close()
    }
    out.push(`longest frame, 2,000 text deltas/s for 3 s   ${fmt(streams)}   target ≤ 50 ms`)

    // 4. a 200 MB bash flood with the Terminal tab open
    const floods: number[] = []
    const chunk = `${'x'.repeat(127)}\n`.repeat(512) // 64 KiB
    const chunks = Math.round((FLOOD_MB * 1024 * 1024) / chunk.length)
    for (let i = 0; i < N; i++) {
      const id = `s-flood${i}`
      bench.show(id, history(id, 50))
      const page = await browser.context.newPage()
      await loadSession(page, host.url, true)
      // BENCH_FLOOD_TAB=files keeps the terminal hidden (to tell xterm's share from the rest's)
      await page.getByTestId(`tab-${process.env.BENCH_FLOOD_TAB ?? 'terminal'}`).click()
      // xterm loads on demand: flood a terminal that is there (its one-time load is not the flood's)
      await page.locator('[data-testid="terminal"] .xterm').waitFor({ state: 'attached', timeout: 30_000 })
      const turnId = 'flood'
      bench.emit(id, { type: 'turn_started', turnId, mode: 'agent' })
      bench.emit(id, { type: 'tool_call_started', turnId, callId: 'f', name: 'bash', args: { command: 'yes | head -c 200M' } })
      const rec = await frameRecorder(page)
      const t0 = Date.now()
      for (let c = 0; c < chunks; c++) {
        bench.emit(id, { type: 'tool_output', turnId, callId: 'f', stream: 'stdout', chunk })
        // let the socket drain now and then (the guest streams about this fast)
        if (c % 16 === 15) await new Promise((r) => setImmediate(r))
      }
      bench.emit(id, { type: 'tool_call_finished', turnId, callId: 'f', name: 'bash', isError: false, result: 'exit_code: 0' })
      await page.locator('[data-testid="tool-row"][data-status="ok"]').last().waitFor({ timeout: 300_000 })
      await page.waitForTimeout(300)
      const { longest, frames } = await rec.stop()
      floods.push(longest)
      if (i === 0) out.push(`  (flood of ${FLOOD_MB} MB sent in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${frames} frames)`)
      await page.close()
    }
    out.push(`longest frame, ${FLOOD_MB} MB bash flood              ${fmt(floods)}   target ≤ 100 ms`)
  } finally {
    await browser.close()
    await host.close()
  }
  process.stdout.write(`bench/renderer (Chromium via the web host, ${N} runs each; p50 (max))\n${out.join('\n')}\n`)
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(1)
})
