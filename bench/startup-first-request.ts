/**
 * bench/startup-first-request: process start → first model request of `./bin/cortex.cjs run` (its
 * shebang, the README's command) for one or more builds, interleaved run by run so the shared
 * machine's load hits them alike, beside `node -e 0` in the same rounds. The scripted model server
 * on 127.0.0.1 answers at once; the guest is real (DOCKER_HOST as set). Run: `npm run build:node &&
 * npx tsx bench/startup-first-request.ts [ROOT…]` (default: this checkout); `BENCH_N` rounds (default 9).
 * Prints p50 (p90) of the wall time and of the CLI's CPU (user + sys) until the request arrives.
 * `BENCH_NO_GUEST=1` points DOCKER_HOST at a socket that does not exist, so no guest starts and the
 * first request waits for none (today it waits for the guest's git facts, ADR 0021): what remains
 * is the CLI's own path — module loading, the session's open, the request's build.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startScriptedModelServer } from '../test/support/scripted-model-server'
import { makeRepo, pct } from './support'

const N = Number(process.env.BENCH_N ?? 9)
const out = (s: string): void => void process.stdout.write(s + '\n')

/** CPU time (user + system, ms) a live process has used so far, from /proc; NaN when unreadable. */
function cpuOf(pid: number | undefined): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100
  } catch {
    return NaN
  }
}

/** One run of `cmd args` until exit: ms from spawn to the first model request and the CPU used by then. */
async function once(cmd: string, args: (baseUrl: string) => string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; cpu: number }> {
  const server = await startScriptedModelServer([{ text: 'done' }])
  try {
    return await new Promise((done, fail) => {
      const t0 = Date.now()
      const child = spawn(cmd, args(server.baseUrl), { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
      let cpu = NaN
      let last = 0
      const watch = setInterval(() => {
        if (server.requests.length > 0) {
          if (Number.isNaN(cpu)) cpu = last
        } else last = cpuOf(child.pid)
      }, 2)
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
      child.stderr.resume()
      child.on('error', fail)
      child.on('close', (code) => {
        clearInterval(watch)
        if (code !== 0 || server.requests.length === 0) return fail(new Error(`exit ${code}: ${stdout.slice(-400)}`))
        done({ ms: server.requests[0]!.receivedAt - t0, cpu })
      })
    })
  } finally {
    await server.close()
  }
}

async function main(): Promise<void> {
  const roots = (process.argv.slice(2).length ? process.argv.slice(2) : ['.']).map((r) => resolve(r))
  const repo = makeRepo({ 'a.txt': 'a\n' })
  const home = mkdtempSync(join(tmpdir(), 'cortex-bench-home-'))
  const wall = new Map<string, number[]>(roots.map((r) => [r, []]))
  const cpu = new Map<string, number[]>(roots.map((r) => [r, []]))
  const bare: number[] = []
  try {
    for (let i = 0; i <= N; i++) {
      const b = await new Promise<number>((done) => {
        const p0 = performance.now()
        spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('close', () => done(performance.now() - p0))
      })
      for (const root of roots) {
        const r = await once(join(root, 'bin/cortex.cjs'), (url) => ['run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', url, '--model', 'scripted', '--json', 'hi'], root, { CORTEX_HOME: home, ...(process.env.BENCH_NO_GUEST === '1' ? { DOCKER_HOST: `unix://${join(home, 'no-docker.sock')}` } : {}) })
        if (i === 0) continue // warm the file cache
        wall.get(root)!.push(r.ms)
        cpu.get(root)!.push(r.cpu)
      }
      if (i > 0) bare.push(b)
    }
    const f = (xs: number[]): string => `${pct(xs, 50).toFixed(0)} ms (${pct(xs, 90).toFixed(0)})`
    out(`# start → first model request, N=${N}, ${new Date().toISOString()}, p50 (p90)`)
    out(`baseline node -e 0: ${f(bare)}`)
    for (const root of roots) out(`${root}: wall ${f(wall.get(root)!)}, CPU until then ${f(cpu.get(root)!)}`)
  } finally {
    rmSync(repo, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(String(err instanceof Error ? err.stack : err) + "\n")
  process.exitCode = 1
})
