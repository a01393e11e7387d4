/**
 * bench/guest: guest start-up and per-call figures, each beside a same-run baseline through the
 * same Docker daemon. Run: `npx tsx bench/guest.ts` (needs Docker and the guest image).
 *
 * - cold attach (start a guest → first read_file result) vs `docker run --rm IMAGE true`
 * - warm attach through the warm pool (a started guest for the repository opened last)
 * - per-call overhead: read_file of 1 KiB and bash `true` vs `docker exec cat` / `docker exec true`
 * - main-process memory (RSS, heap) with 4 attached guests
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { DockerGuestProvider } from '../src/main/guest/docker-guest'
import type { Guest } from '../src/main/guest/guest'
import { ensureGuestImage } from '../src/main/guest/image'
import { WarmGuestPool } from '../src/main/guest/warm-pool'
import { TOOL_CATALOG } from '../src/main/tools/catalog'
import { makeRepo, pct, row, sample, sh, time, toolContext } from './support'

const N = Number(process.env.BENCH_N ?? 10)
const out = (s: string) => process.stdout.write(s + '\n')

async function main(): Promise<void> {
  const { tag } = await ensureGuestImage()
  const repo = makeRepo({ 'one-kib.txt': 'x'.repeat(1023) + '\n' })
  const provider = new DockerGuestProvider({ image: tag })
  const readFile = TOOL_CATALOG.read_file
  const bash = TOOL_CATALOG.bash
  let session = 0
  out(`# bench/guest — image ${tag}, ${N} samples each, ${new Date().toISOString()}`)

  // cold attach vs docker run
  const baseline = await sample(Math.min(N, 5), () => sh('docker', ['run', '--rm', '--network', 'none', tag, 'true']))
  const cold: number[] = []
  for (let i = 0; i < Math.min(N, 5); i++) {
    let g: Guest | undefined
    cold.push(
      await time(async () => {
        g = await provider.start({ sessionId: `bench-${++session}`, repo })
        await readFile.execute({ path: 'one-kib.txt' }, toolContext(g))
      })
    )
    await g?.close() // teardown is not part of attach
  }
  row('baseline: docker run --rm IMAGE true', baseline)
  row('cold attach → first read_file result', cold, `ratio ${(pct(cold, 50) / pct(baseline, 50)).toFixed(2)}× (target ≤ 1.5×)`)

  // warm attach: the pool keeps a started guest for the repository opened last
  const pool = new WarmGuestPool(provider, { size: 1 })
  pool.prepare(repo)
  const warm: number[] = []
  for (let i = 0; i < Math.min(N, 7); i++) {
    await pool.settled()
    let g: Guest | undefined
    warm.push(
      await time(async () => {
        g = await pool.start({ sessionId: `bench-${++session}`, repo })
        await readFile.execute({ path: 'one-kib.txt' }, toolContext(g))
      })
    )
    await g?.close()
  }
  await pool.close()
  row('warm attach (pool of 1) → first read_file result', warm, '(target p50 ≤ 150 ms)')

  // per-call overhead
  const guest = await provider.start({ sessionId: `bench-${++session}`, repo })
  const ctx = toolContext(guest)
  const execCat = await sample(N, () => sh('docker', ['exec', guest.id, 'cat', join(repo, 'one-kib.txt')]))
  const toolRead = await sample(N * 5, () => readFile.execute({ path: 'one-kib.txt' }, ctx))
  const execTrue = await sample(N, () => sh('docker', ['exec', guest.id, 'true']))
  const toolTrue = await sample(N * 5, () => bash.execute({ command: 'true' }, ctx))
  row('baseline: docker exec cat (1 KiB)', execCat)
  row('read_file 1 KiB through the guest agent', toolRead, '(target p50 ≤ 10 ms)')
  row('baseline: docker exec true', execTrue)
  row('bash `true` through the guest agent', toolTrue, '(target p50 ≤ 25 ms)')

  // memory with 4 guests
  const more: Guest[] = []
  const t4 = await time(async () => {
    more.push(...(await Promise.all([1, 2, 3].map(() => provider.start({ sessionId: `bench-${++session}`, repo })))))
  })
  global.gc?.()
  const mem = process.memoryUsage()
  out(`main process with 4 attached guests: rss ${(mem.rss / 2 ** 20).toFixed(1)} MiB, heap used ${(mem.heapUsed / 2 ** 20).toFixed(1)} MiB (3 more guests started in parallel in ${t4.toFixed(0)} ms)`)

  await Promise.all([guest, ...more].map((g) => g.close()))
  rmSync(repo, { recursive: true, force: true })
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/guest failed: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
