/**
 * Shared helpers for the benchmarks in bench/: timing, percentiles, a tool context and a test
 * repository owned by a non-root uid. Benchmarks print figures; they never assert.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Guest } from '../src/main/guest/guest'
import type { ToolContext } from '../src/main/tools/tool'

/** Milliseconds elapsed while `f` runs. */
export async function time(f: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now()
  await f()
  return performance.now() - t0
}

/** Run `f` `n` times (after `warmup` untimed runs) and return the samples in ms. */
export async function sample(n: number, f: () => Promise<unknown> | unknown, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await f()
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push(await time(f))
  return out
}

/** The p-th percentile (0–100) of `xs` in the same unit, nearest-rank. */
export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN
}

/** Format ms with one decimal. */
export const ms = (x: number): string => `${x.toFixed(1)} ms`

/** Print one row: name, p50, p90 and an optional note. */
export function row(name: string, xs: number[], note = ''): void {
  process.stdout.write(`${name.padEnd(44)} p50 ${ms(pct(xs, 50)).padStart(10)}   p90 ${ms(pct(xs, 90)).padStart(10)}   n=${xs.length}${note ? `   ${note}` : ''}\n`)
}

/** Run a command synchronously and return its stdout; throws with stderr on failure. */
export function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`)
  return r.stdout
}

/** A folder under /tmp owned by uid 4242 (when root), holding `files`. */
export function makeRepo(files: Record<string, string | Buffer> = {}): string {
  const dir = mkdtempSync('/tmp/cortex-bench-')
  chmodSync(dir, 0o755)
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body)
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', '4242:4242', dir])
  return dir
}

/** A tool context over `guest` that discards streamed output and never aborts. */
export function toolContext(guest: Guest): ToolContext {
  return {
    guest,
    signal: new AbortController().signal,
    session: { getTodos: () => [], setTodos: () => undefined, setPlan: () => undefined },
    emitOutput: () => undefined
  }
}
