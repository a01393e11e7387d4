/**
 * Checkpoint snapshots on a real tree: the `typescript` npm package unpacked into a git repository,
 * in the repository's checkpoint guest (the container that mounts its store, ADR 0010). Prints, each as p50/p90 over BENCH_N samples:
 * - a snapshot of the unchanged tree, next to `git status --porcelain` on the same tree in the same guest;
 * - a snapshot after changing 10 files (10 of median size, then the 10 largest), next to `git status`
 *   after the same kind of change;
 * - the store's size after 50 turns (before and after snapshots, 10 files changed per turn).
 * Both sides run through the guest agent (one spawn each), so its per-call cost is in both.
 *
 *   npx tsx bench/checkpoints.ts
 */
import { appendFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { DockerGuestProvider } from '../src/main/guest/docker-guest'
import { ensureGuestImage } from '../src/main/guest/image'
import { ShadowStore } from '../src/main/checkpoints/shadow-store'
import { defaultAgentPath } from '../src/main/guest/paths'
import { makeNpmRepo } from '../test/support/npm-repo'
import { pct, row, sample, time } from './support'

const N = Number(process.env.BENCH_N ?? 10)

/** Files (relative) and total bytes under `dir`, .git left out. */
function treeSize(dir: string, rel = ''): { files: number; bytes: number } {
  let files = 0
  let bytes = 0
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name
    if (r === '.git') continue
    if (e.isDirectory()) {
      const s = treeSize(dir, r)
      files += s.files
      bytes += s.bytes
    } else {
      files++
      bytes += statSync(join(dir, r)).size
    }
  }
  return { files, bytes }
}

async function main(): Promise<void> {
  const agentPath = defaultAgentPath() // built by npm run build:node
  await ensureGuestImage()
  const repo = makeNpmRepo('typescript')
  const stores = mkdtempSync(join(tmpdir(), 'cortex-bench-cp-'))
  // the repository's checkpoint guest (ADR 0010): where snapshots run; `git status` runs there too for the comparison
  const provider = new DockerGuestProvider({ agentPath, checkpointsDir: stores, labels: { 'dev.cortex.bench': '1' } })
  const lease = provider.checkpointLease(repo.dir)
  if (!lease) throw new Error('no checkpoint lease')
  const guest = await lease.guest()
  try {
    const store = new ShadowStore(guest)
    const size = treeSize(repo.dir)
    process.stdout.write(`tree: typescript package, ${size.files} files, ${(size.bytes / 1024 ** 2).toFixed(1)} MiB\n`)
    const status = async (): Promise<void> => {
      const r = await guest.spawn({ argv: ['git', 'status', '--porcelain'], cwd: repo.dir })
      if (r.exitCode !== 0) throw new Error(`git status failed: ${r.stderr}`)
    }
    const sid = 'bench'
    let n = 0
    const snap = (): Promise<string> => store.snapshot(sid, `refs/cortex/${sid}/t/${n++}/before`)

    const first = await time(snap)
    process.stdout.write(`first snapshot (empty store, every file hashed): ${first.toFixed(1)} ms\n`)

    const st0 = await sample(N, status)
    const sn0 = await sample(N, snap)
    row('git status, unchanged tree', st0)
    row('snapshot, unchanged tree', sn0, `${(pct(sn0, 50) / pct(st0, 50)).toFixed(2)}× git status`)

    // 10 changed files per sample: a line appended to 10 of the package's files, once the 10 around
    // the median size, once the 10 largest (a snapshot stores what changed: it reads and compresses them)
    const bySize = readdirSync(join(repo.dir, 'lib'))
      .filter((f) => /\.(d\.ts|js)$/.test(f))
      .map((f) => join(repo.dir, 'lib', f))
      .sort((a, b) => statSync(a).size - statSync(b).size)
    const mid = Math.max(0, Math.floor(bySize.length / 2) - 5)
    let round = 0
    let targets: string[] = []
    const change = (): void => {
      round++
      for (const f of targets) appendFileSync(f, `// change ${round}\n`)
    }
    for (const [label, files] of [['median-size', bySize.slice(mid, mid + 10)], ['largest', bySize.slice(-10)]] as const) {
      targets = [...files]
      const mib = targets.reduce((n, f) => n + statSync(f).size, 0) / 1024 ** 2
      const st10: number[] = []
      const sn10: number[] = []
      for (let i = 0; i < N + 1; i++) {
        change()
        const s = await time(status)
        change()
        const c = await time(snap)
        if (i > 0) {
          st10.push(s)
          sn10.push(c)
        }
      }
      row(`git status, 10 ${label} files changed (${mib.toFixed(1)} MiB)`, st10)
      row(`snapshot, 10 ${label} files changed`, sn10, `${(pct(sn10, 50) / pct(st10, 50)).toFixed(2)}× git status`)
    }
    targets = bySize.slice(mid, mid + 10)

    const before = await store.size()
    for (let t = 0; t < 50; t++) {
      await store.snapshot(sid, `refs/cortex/${sid}/turn/${t}/before`)
      change()
      await store.snapshot(sid, `refs/cortex/${sid}/turn/${t}/after`)
    }
    const after = await store.size()
    process.stdout.write(
      `store after ${n} bench snapshots: ${(before / 1024 ** 2).toFixed(1)} MiB; after 50 more turns (10 median-size files changed each, 2 snapshots per turn): ${(after / 1024 ** 2).toFixed(1)} MiB ` +
        `(+${((after - before) / 1024 ** 2).toFixed(1)} MiB, ${((after - before) / 50 / 1024).toFixed(0)} KiB per turn)\n`
    )
  } finally {
    await lease.release() // the last lease removes the checkpoint guest
    await provider.close()
    rmSync(stores, { recursive: true, force: true })
    repo.cleanup()
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`)
  process.exitCode = 1
})
