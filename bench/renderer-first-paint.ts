/**
 * bench/renderer-first-paint: only the first-paint figure of bench/renderer (a 10,000-event session
 * through the web host in Chromium: navigation start → the last turn's footer painted), for one or
 * more renderer builds served side by side and loaded in turn (interleaved), so the shared machine's
 * load hits them alike. With BENCH_PROFILE=DIR, one extra load of each build is recorded with the
 * CDP Profiler into DIR/<n>.cpuprofile. Run: `npm run build && npx tsx bench/renderer-first-paint.ts
 * [RENDERER_DIR…]` (default: this checkout's out/renderer); `BENCH_N` loads of each (default 9).
 */
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { createApiStub, type CortexApi, type RequestName, type SessionInfo } from '../src/shared/contract'
import { CortexError } from '../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../src/shared/events'
import { startWebHost } from '../src/web'
import { ensureRendererBuild, launchChromium, RENDERER_DIR } from '../e2e/support/browser'
import { pct } from './support'

const N = Number(process.env.BENCH_N ?? 9)

/** The synthetic history of bench/renderer: turns of 7 events, `count` events in all. */
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

/** A session API serving one session with `events` as its history; `historyAt` is when it was last asked. */
function benchApi(events: EventEnvelope[]): { api: CortexApi; state: { historyAt: number } } {
  const state = { historyAt: 0 }
  const info: SessionInfo = { id: 's-big', repo: '/tmp/bench-repo', mode: 'agent', sandbox: 'workspace-write', createdAt: Date.now(), running: false }
  const api = createApiStub(
    async (name: RequestName) => {
      switch (name) {
        case 'listSessions':
          return [info]
        case 'sessionEvents':
          state.historyAt = Date.now()
          return events
        case 'listStoredSessions':
          return []
        case 'submit':
          return { ok: true }
        default:
          throw new CortexError('session_not_found', `${name} is not served by the bench`)
      }
    },
    () => () => undefined
  )
  return { api, state }
}

/** Load the page and wait until the last turn's footer is painted; ms since navigation start. */
async function loadSession(page: Page, url: string): Promise<number> {
  await page.goto(url)
  await page.getByTestId('turn-end').last().waitFor({ timeout: 60_000 })
  return page.evaluate('new Promise((r) => requestAnimationFrame(() => r(performance.now())))')
}

async function main(): Promise<void> {
  const dirs = process.argv.slice(2).length ? process.argv.slice(2).map((d) => resolve(d)) : (ensureRendererBuild(), [RENDERER_DIR])
  const { api, state } = benchApi(history('s-big', 10_000))
  const hosts = await Promise.all(dirs.map((rendererDir) => startWebHost({ api, rendererDir, port: 0, maxPayload: 4 * 1024 * 1024 })))
  const browser = await launchChromium()
  const paints = dirs.map(() => [] as number[])
  const afterHistory = dirs.map(() => [] as number[])
  try {
    for (let i = 0; i <= N; i++) {
      for (let d = 0; d < dirs.length; d++) {
        const page = await browser.context.newPage()
        const painted = await loadSession(page, hosts[d]!.url)
        const origin = await page.evaluate<number>('performance.timeOrigin')
        if (i > 0) {
          paints[d]!.push(painted)
          afterHistory[d]!.push(painted - (state.historyAt - origin))
        }
        await page.close()
      }
    }
    if (process.env.BENCH_PROFILE) {
      for (let d = 0; d < dirs.length; d++) {
        const page = await browser.context.newPage()
        const cdp = await page.context().newCDPSession(page)
        await cdp.send('Profiler.enable')
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
        await cdp.send('Profiler.start')
        await loadSession(page, hosts[d]!.url)
        const { profile } = await cdp.send('Profiler.stop')
        writeFileSync(join(process.env.BENCH_PROFILE, `${d}.cpuprofile`), JSON.stringify(profile))
        await page.close()
      }
    }
  } finally {
    await browser.close()
    await Promise.all(hosts.map((h) => h.close()))
  }
  const f = (xs: number[]): string => `${pct(xs, 50).toFixed(0)} ms (max ${Math.max(...xs).toFixed(0)})`
  process.stdout.write(`# first paint of a 10,000-event session, N=${N} interleaved, ${new Date().toISOString()}, p50 (max)\n`)
  dirs.forEach((d, i) => process.stdout.write(`${d}: ${f(paints[i]!)}; history asked → painted ${f(afterHistory[i]!)}\n`))
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(1)
})
