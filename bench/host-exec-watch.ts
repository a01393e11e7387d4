/**
 * The per-turn cost of the host-exec watch (src/main/harness/host-exec-watch.ts): one snapshot of a
 * folder (default: this package, node_modules included), taken at a turn's start and again at its
 * end. Prints p50/p90 over BENCH_N runs (default 10) and the entries walked. Never asserts.
 *
 *   npx tsx bench/host-exec-watch.ts [folder]
 */
import { execFileSync } from 'node:child_process'
import { snapshotHostExec } from '../src/main/harness/host-exec-watch'

async function main(): Promise<void> {
  const dir = process.argv[2] ?? process.cwd()
  const n = Number(process.env.BENCH_N ?? 10)
  const times: number[] = []
  let incomplete = false
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const s = await snapshotHostExec(dir, 60_000)
    times.push(performance.now() - t0)
    incomplete ||= s.incomplete
  }
  times.sort((a, b) => a - b)
  const q = (p: number): string => (times[Math.min(times.length - 1, Math.floor(p * times.length))] as number).toFixed(1)
  const entries = execFileSync('find', [dir, '-xdev'], { maxBuffer: 1 << 28 }).toString().split('\n').length - 1
  process.stdout.write(`host-exec snapshot of ${dir} (${entries} entries${incomplete ? ', incomplete' : ''}): p50 ${q(0.5)} ms (p90 ${q(0.9)})\n`)
}

void main()
