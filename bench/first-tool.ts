/**
 * bench/first-tool: the first tool call's wait of `cortex run` (issue 24 items 1-2, ADR 0026) on a
 * real package repository (lodash-es, the installed copy packed with `npm pack`, git-committed),
 * with the scripted model answering at once and with a 1.5 s delay before its first byte, beside
 * `node -e 0` in the same run. Run: `npm run build && npx tsx bench/first-tool.ts` (needs Docker
 * and the guest image; `BENCH_N` runs per row, default 5, interleaved; `BENCH_ROOT=DIR` measures
 * DIR/bin/cortex.cjs instead of this checkout's, e.g. a worktree of main for a before/after).
 *
 * Each run: the model asks for read_file package.json, then 20 more read_file steps, then answers.
 * - process start → first model request (the scripted server's arrival time − spawn time)
 * - first tool: the model's first response complete → tool_call_started, → tool_call_finished
 * - later steps: a response complete → the next request, median of the 20 read steps
 * Rows: `cold` (the task on the command line: the guests start with the process; once more with
 * `bash true` as the first call, which waits for the turn's `before` snapshot), `warm spare`
 * (the same with CORTEX_WARM_GUEST=1, the spare guest the previous warm run left claimed: ADR 0040;
 * the bench checks that no session container was started) and, with BENCH_GUEST_UP=1, `guest up`
 * (`--input stream-json`, the task sent once the session's guest reported ready). The machine's
 * load average is printed before and after.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { ensureGuestImage } from '../src/main/guest/image'
import type { EventEnvelope } from '../src/shared/events'
import { makeNpmRepo } from '../test/support/npm-repo'
import { startScriptedModelServer, type ScriptStep } from '../test/support/scripted-model-server'
import { pct, row } from './support'

const N = Number(process.env.BENCH_N ?? 5)
const ROOT = resolve(process.env.BENCH_ROOT ?? '.')
const CLI = resolve(ROOT, 'bin/cortex.cjs')
const LATER_STEPS = 20
const out = (s: string): void => void process.stdout.write(s + '\n')
/** Warm runs that found no spare to claim. */
let unclaimed = 0

/** Figures of one run, ms. */
interface RunFigures {
  firstRequest: number
  toolStarted: number
  toolFinished: number
  laterStep: number
}

/** How a run gets its guest. */
type Start = 'cold' | 'warm' | 'up'

/** One `cortex run` on `repo`; `delayMs` before the first response's first byte; `up`: the task is sent once the guest is ready; `warm`: the spare claimed. */
async function oneRun(repo: string, home: string, delayMs: number, start: Start, firstBash = false): Promise<RunFigures> {
  const guestUp = start === 'up'
  const read = (path: string): ScriptStep => ({ toolCalls: [{ name: 'read_file', args: { path } }] })
  const first: ScriptStep = firstBash ? { toolCalls: [{ name: 'bash', args: { command: 'true' } }] } : read('package.json')
  const script: ScriptStep[] = [{ ...first, ...(delayMs ? { firstByteDelayMs: delayMs } : {}) }]
  for (let i = 0; i < LATER_STEPS; i++) script.push(read(i % 2 ? 'README.md' : 'package.json'))
  script.push({ text: 'done' })
  const server = await startScriptedModelServer(script)
  try {
    const task = guestUp ? ['--input', 'stream-json'] : ['read the package']
    const args = [CLI, 'run', '--repo', repo, '--mode', 'agent', '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', ...task]
    const t0 = Date.now()
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, CORTEX_HOME: home, CORTEX_WARM_POOL: '0', CORTEX_WARM_GUEST: start === 'warm' ? '1' : '0' }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let sent = false
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c
      if (guestUp && !sent && /"type":"guest_status","state":"ready"/.test(stdout)) {
        sent = true
        child.stdin.end(JSON.stringify({ type: 'user_message', text: 'read the package' }) + '\n')
      }
    })
    if (!guestUp) child.stdin.end()
    child.stderr.resume()
    const code = await new Promise<number | null>((done, fail) => child.on('error', fail).on('close', done))
    if (code !== 0) throw new Error(`cortex run exited ${code}: ${stdout.slice(-500)}`)
    const events = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as EventEnvelope)
    const coldStart = events.some((e) => e.event.type === 'guest_status' && e.event.state === 'starting')
    if (start === 'warm' && coldStart) {
      // reported, not thrown: a spare that could not be claimed is a figure too (the log says why)
      const log = readFileSync(join(home, 'cortex.log'), 'utf8').split('\n').filter((l) => /spare/.test(l)).slice(-6)
      process.stderr.write(`a warm run started a container (no spare claimed):\n  ${log.join('\n  ')}\n`)
      unclaimed++
    }
    const started = events.filter((e) => e.event.type === 'tool_call_started')
    const finished = events.filter((e) => e.event.type === 'tool_call_finished')
    const reqs = server.requests
    if (started.length !== LATER_STEPS + 1 || reqs.length !== LATER_STEPS + 2) throw new Error(`unexpected run: ${started.length} calls, ${reqs.length} requests`)
    const firstEnd = reqs[0]!.respondedAt!
    const steps: number[] = []
    for (let i = 1; i <= LATER_STEPS; i++) steps.push(reqs[i + 1]!.receivedAt - reqs[i]!.respondedAt!)
    return {
      firstRequest: reqs[0]!.receivedAt - t0,
      toolStarted: started[0]!.time - firstEnd,
      toolFinished: finished[0]!.time - firstEnd,
      laterStep: pct(steps, 50)
    }
  } finally {
    await server.close()
  }
}

/** Wall time (ms) of `node -e 0`. */
async function nodeBare(): Promise<number> {
  const t0 = performance.now()
  await new Promise<void>((done, fail) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('error', fail).on('close', () => done()))
  return performance.now() - t0
}

async function main(): Promise<void> {
  const { tag } = await ensureGuestImage()
  out(`# bench/first-tool — ${CLI}, image ${tag}, ${N} interleaved runs per row, ${new Date().toISOString()}`)
  const repo = makeNpmRepo('lodash-es')
  const home = mkdtempSync(join(tmpdir(), 'cortex-bench-home-'))
  const up = process.env.BENCH_GUEST_UP === '1'
  const rows: Array<{ name: string; delay: number; start: Start; bash?: boolean }> = [
    { name: 'instant model, cold', delay: 0, start: 'cold' },
    { name: 'instant model, cold, first call bash (it waits for the turn\'s checkpoint)', delay: 0, start: 'cold', bash: true },
    { name: 'instant model, warm spare', delay: 0, start: 'warm' },
    ...(up ? [{ name: 'instant model, guest up', delay: 0, start: 'up' as const }] : []),
    { name: '1.5 s first answer, cold', delay: 1500, start: 'cold' },
    { name: '1.5 s first answer, warm spare', delay: 1500, start: 'warm' },
    ...(up ? [{ name: '1.5 s first answer, guest up', delay: 1500, start: 'up' as const }] : [])
  ]
  const figures = rows.map(() => [] as RunFigures[])
  const bare: number[] = []
  const load = [loadavg()[0]!]
  try {
    await oneRun(repo.dir, home, 0, 'cold') // warm the file cache and the image
    await oneRun(repo.dir, home, 0, 'warm').catch(() => undefined) // leaves the first spare
    unclaimed = 0 // that one had nothing to claim
    for (let i = 0; i < N; i++) {
      bare.push(await nodeBare())
      for (const [j, r] of rows.entries()) figures[j]!.push(await oneRun(repo.dir, home, r.delay, r.start, r.bash))
    }
  } finally {
    load.push(loadavg()[0]!)
    // the spare the last warm run left
    const ids = execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.repo=${repo.dir}`], { encoding: 'utf8' }).split('\n').filter(Boolean)
    // with its passwd folder, which outlives the process that made the spare
    const etc = ids.map((id) => execFileSync('docker', ['inspect', '-f', '{{range .Mounts}}{{if eq .Destination "/etc/passwd"}}{{.Source}}{{end}}{{end}}', id], { encoding: 'utf8' }).trim()).filter(Boolean)
    if (ids.length) execFileSync('docker', ['rm', '-f', ...ids], { stdio: 'ignore' })
    for (const f of etc) rmSync(dirname(f), { recursive: true, force: true })
    repo.cleanup()
    rmSync(home, { recursive: true, force: true })
  }
  out(`load average (1 min) before / after: ${load.map((l) => l.toFixed(1)).join(' / ')} on ${cpus().length} cores`)
  row('baseline: node -e 0 (spawn → exit)', bare)
  out(`warm runs that claimed no spare (counted in their rows): ${unclaimed}`)
  for (const [j, r] of rows.entries()) {
    const f = figures[j]!
    out(`## ${r.name}`)
    row('  process start → first model request', f.map((x) => x.firstRequest), r.start === 'up' ? '(the task sent after guest ready)' : '(target ≤ 350 ms)')
    row('  first response end → tool started', f.map((x) => x.toolStarted))
    row('  first response end → tool finished', f.map((x) => x.toolFinished), r.bash ? '' : r.delay ? '(target ≤ 50 ms)' : '(target ≤ 150 ms)')
    row('  later step: response end → next request', f.map((x) => x.laterStep), '(median of 20 read steps per run; target ≤ 25 ms)')
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/first-tool failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
