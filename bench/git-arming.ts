/**
 * The cost of the git-arming scan (src/main/harness/git-arming.ts), which walks the whole tree after
 * each call of a tool that may write and at a turn's start and end: one scan of a folder (default:
 * this package, node_modules included), and of a generated wide tree (BENCH_WIDE entries in 100
 * folders, default 250 000) beside `find -xdev` over the same tree as a baseline. Prints p50/p90
 * over BENCH_N runs (default 10). Never asserts.
 *
 *   npx tsx bench/git-arming.ts [folder]
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scanGitdirs } from '../src/main/harness/git-arming'
import { pct, sample } from './support'

async function report(label: string, dir: string, n: number): Promise<void> {
  let visited = 0
  let incomplete = false
  const scans = await sample(n, async () => {
    const s = await scanGitdirs(dir, { deadlineMs: 120_000 })
    visited = s.visited
    incomplete ||= s.incomplete
  })
  const finds = await sample(Math.min(n, 5), () => execFileSync('find', [dir, '-xdev'], { maxBuffer: 1 << 30 }))
  const f = (xs: number[]): string => `${pct(xs, 50).toFixed(1)} ms (p90 ${pct(xs, 90).toFixed(1)})`
  process.stdout.write(`${label}: ${visited} entries${incomplete ? ' (incomplete)' : ''}: scan ${f(scans)}; find -xdev ${f(finds)}\n`)
}

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_N ?? 10)
  await report(`this package (${process.argv[2] ?? process.cwd()})`, process.argv[2] ?? process.cwd(), n)
  const wide = Number(process.env.BENCH_WIDE ?? 250_000)
  const tree = mkdtempSync(join(tmpdir(), 'cortex-bench-arming-'))
  try {
    for (let d = 0; d < 100; d++) {
      mkdirSync(join(tree, `d${d}`))
      for (let i = 0; i < wide / 100; i++) writeFileSync(join(tree, `d${d}`, `f${i}`), '')
    }
    await report(`generated tree (${wide} files in 100 folders)`, tree, n)
  } finally {
    rmSync(tree, { recursive: true, force: true })
  }
}

void main()
