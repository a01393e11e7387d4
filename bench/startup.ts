/**
 * bench/startup: start-up figures of the `cortex` command beside `node -e 0` in the same run
 * (issue 11 part 4). Run: `npm run build:node && npx tsx bench/startup.ts` (needs Docker and the
 * guest image for the run rows; `BENCH_N` samples each, default 10; `BENCH_NPX=0` skips npx;
 * `BENCH_ROOT=DIR` measures DIR/bin/cortex.cjs instead of this checkout's).
 *
 * - `cortex --version` and `cortex --help` (wall time to exit) vs `node -e 0`
 * - process start → first model request of `cortex run` (scripted model server on 127.0.0.1,
 *   a real guest, CORTEX_WARM_POOL unset), through `node bin/cortex.cjs`, `./bin/cortex.cjs`
 *   (its shebang) and `npx cortex`
 * - the first tool call's wait for a cold guest: tool_call_started → tool_call_finished of a
 *   read_file of 1 KiB, when the model answers at once and when its first answer takes 1.5 s
 *   (the wait should then be gone: the guest starts with the first request, not after it), beside
 *   the same read_file once the guest is up, and when the first message comes 2 s after the session
 *   opened (`--input stream-json`, as in the app: the guests, the checkpoint guest too, are up by then)
 * - bash `true` per call through the guest agent vs `docker exec true`
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DockerGuestProvider } from '../src/main/guest/docker-guest'
import { ensureGuestImage } from '../src/main/guest/image'
import { TOOL_CATALOG } from '../src/main/tools/catalog'
import type { EventEnvelope } from '../src/shared/events'
import { startScriptedModelServer, type ScriptStep } from '../test/support/scripted-model-server'
import { makeRepo, ms, pct, row, sample, sh, toolContext } from './support'

const N = Number(process.env.BENCH_N ?? 10)
const out = (s: string): void => void process.stdout.write(s + '\n')
/** The launcher measured: this checkout's, or `BENCH_ROOT`'s (a copy with its own out/, so a build by someone else mid-run cannot disturb it). */
const ROOT = resolve(process.env.BENCH_ROOT ?? '.')
const CLI = resolve(ROOT, 'bin/cortex.cjs')

/** CPU time (user + system, ms) a live process has used so far, from /proc (10 ms ticks); NaN when unreadable. */
function cpuOf(pid: number | undefined): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100 // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN
  }
}

/** Wall time (ms) from spawn to exit of `cmd args`, stdout collected. */
function runTimed(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  onSpawn?: (pid: number | undefined) => void,
  stdin?: { afterMs: number; text: string }
): Promise<{ ms: number; stdout: string; code: number | null; t0: number }> {
  return new Promise((done, fail) => {
    const t0 = Date.now()
    const p0 = performance.now()
    // npx resolves `cortex` from the package in its working folder: BENCH_ROOT's, when given
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] })
    onSpawn?.(child.pid)
    if (stdin) setTimeout(() => child.stdin?.end(stdin.text), stdin.afterMs)
    let stdout = ''
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    child.stderr!.resume()
    child.on('error', fail)
    child.on('close', (code) => done({ ms: performance.now() - p0, stdout, code, t0 }))
  })
}

/**
 * One `cortex run` through `launcher`: ms from spawn to the first model request, and the first and a
 * later read_file's durations (ms). With `messageAfterMs` the task comes on stdin (`--input
 * stream-json`) that long after spawn, as a user's first message comes after the session opened.
 */
async function oneRun(launcher: string[], repo: string, home: string, firstAnswerMs: number, messageAfterMs = 0): Promise<{ firstRequest: number; firstRequestCpu: number; firstTool: number; warmTool: number }> {
  const read = { name: 'read_file', args: { path: 'one-kib.txt' } }
  // chunkDelayMs delays each SSE frame: a single tool call streams in about 6 frames
  const script: ScriptStep[] = [{ toolCalls: [read], ...(firstAnswerMs ? { chunkDelayMs: firstAnswerMs / 6 } : {}) }, { toolCalls: [read] }, { text: 'done' }]
  const server = await startScriptedModelServer(script)
  try {
    const [cmd, ...pre] = launcher
    // the CPU the process (the node process, not npx's parent) has used when the first request arrives
    let firstRequestCpu = NaN
    let watch: NodeJS.Timeout | undefined
    const task = messageAfterMs ? ['--input', 'stream-json'] : ['read it twice']
    const stdin = messageAfterMs ? { afterMs: messageAfterMs, text: JSON.stringify({ type: 'user_message', text: 'read it twice' }) + '\n' } : undefined
    const r = await runTimed(cmd!, [...pre, 'run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', ...task], {
      CORTEX_HOME: home
    }, (pid) => {
      let last = 0
      watch = setInterval(() => {
        if (server.requests.length > 0) {
          firstRequestCpu = last
          clearInterval(watch)
        } else last = cpuOf(pid)
      }, 2)
    }, stdin).finally(() => clearInterval(watch))
    if (r.code !== 0) throw new Error(`cortex run exited ${r.code}: ${r.stdout.slice(-500)}`)
    const events = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as EventEnvelope)
    const started = events.filter((e) => e.event.type === 'tool_call_started')
    const finished = events.filter((e) => e.event.type === 'tool_call_finished')
    if (started.length < 2 || finished.length < 2) throw new Error('cortex run did not run both read_file calls')
    return {
      firstRequest: server.requests[0]!.receivedAt - r.t0,
      firstRequestCpu,
      firstTool: finished[0]!.time - started[0]!.time,
      warmTool: finished[1]!.time - started[1]!.time
    }
  } finally {
    await server.close()
  }
}

async function main(): Promise<void> {
  const { tag } = await ensureGuestImage()
  out(`# bench/startup — image ${tag}, ${N} samples each, ${new Date().toISOString()}`)

  // --version / --help vs node -e 0 (interleaved, so load changes hit all three alike)
  const nodeBare: number[] = []
  const version: number[] = []
  const help: number[] = []
  for (let i = 0; i < N + 1; i++) {
    const a = await runTimed(process.execPath, ['-e', '0'])
    const b = await runTimed(process.execPath, [CLI, '--version'])
    const c = await runTimed(process.execPath, [CLI, '--help'])
    if (b.code !== 0 || c.code !== 0) throw new Error('cortex --version/--help failed: is the CLI built (npm run build:node)?')
    if (i === 0) continue // warm the file cache
    nodeBare.push(a.ms)
    version.push(b.ms)
    help.push(c.ms)
  }
  const base = pct(nodeBare, 50)
  // CPU of node -e 0 (its own process.cpuUsage at exit): the load-independent baseline of the CPU row below
  const nodeCpu: number[] = []
  for (let i = 0; i < N; i++) {
    const r = await runTimed(process.execPath, ['-e', 'process.on("exit", () => { const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000)) })'])
    nodeCpu.push(Number(r.stdout))
  }
  row('baseline: node -e 0', nodeBare)
  row('node bin/cortex.cjs --version', version, `${(pct(version, 50) / base).toFixed(2)}× node -e 0 (target ≤ 3×)`)
  row('node bin/cortex.cjs --help', help, `${(pct(help, 50) / base).toFixed(2)}× node -e 0 (target ≤ 3×)`)

  // cortex run: process start → first model request; the first tool's wait for a cold guest
  const repo = makeRepo({ 'one-kib.txt': 'x'.repeat(1023) + '\n' })
  const home = mkdtempSync(join(tmpdir(), 'cortex-bench-home-'))
  const launchers: Array<[string, string[], number]> = [
    ['node bin/cortex.cjs', [process.execPath, CLI], N],
    ['./bin/cortex.cjs (shebang)', [CLI], Math.min(N, 5)],
    ...(process.env.BENCH_NPX === '0' ? [] : ([['npx cortex', ['npx', 'cortex'], Math.min(N, 3)]] as Array<[string, string[], number]>))
  ]
  try {
    for (const [name, launcher, n] of launchers) {
      const first: number[] = []
      const firstCpu: number[] = []
      const tool: number[] = []
      const warm: number[] = []
      for (let i = 0; i < n; i++) {
        const r = await oneRun(launcher, repo, home, 0)
        first.push(r.firstRequest)
        firstCpu.push(r.firstRequestCpu)
        tool.push(r.firstTool)
        warm.push(r.warmTool)
      }
      row(`${name}: start → first model request`, first, '(target ≤ 400 ms)')
      if (name.startsWith('node ')) {
        row('  its CPU until then (user+sys, 10 ms ticks)', firstCpu, `node -e 0 uses ${ms(pct(nodeCpu, 50))}`)
        row('  first read_file, model answers at once', tool, '(cold guest wait; target ≤ 300 ms)')
        row('  a later read_file (guest up)', warm)
      }
    }
    const slow: number[] = []
    for (let i = 0; i < Math.min(N, 5); i++) slow.push((await oneRun([process.execPath, CLI], repo, home, 1500)).firstTool)
    row('  first read_file, first answer takes 1.5 s', slow, '(target: no wait)')
    const later: number[] = []
    for (let i = 0; i < Math.min(N, 5); i++) later.push((await oneRun([process.execPath, CLI], repo, home, 0, 2000)).firstTool)
    row('  first read_file, first message 2 s after start, model answers at once', later, '(target: no wait: the guests are up)')

    // bash `true` per call through the guest agent
    const provider = new DockerGuestProvider({ image: tag })
    const guest = await provider.start({ sessionId: 'bench-startup', repo })
    try {
      const ctx = toolContext(guest)
      const execTrue = await sample(Math.min(N, 5), () => sh('docker', ['exec', guest.id, 'true']))
      const toolTrue = await sample(N * 5, () => TOOL_CATALOG.bash.execute({ command: 'true' }, ctx), 3)
      row('baseline: docker exec true', execTrue)
      row('bash `true` through the guest agent', toolTrue, `(target ≤ 10 ms) ${ms(pct(toolTrue, 50))}`)
    } finally {
      await guest.close()
    }
  } finally {
    rmSync(repo, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/startup failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
