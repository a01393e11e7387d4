/**
 * bench/guest-image: the default guest image (issue 18, ADR 0030) — its size, the build time per
 * builder, and a real project's `npm test` in the guest against the same on the host.
 * Run: `npx tsx bench/guest-image.ts` (needs Docker, root and debootstrap for the offline builder,
 * and the npm registry for through@2.3.8). BENCH_REBUILD=1 also times a fresh debootstrap base
 * (minutes); BENCH_DOCKERFILE=1 times the Dockerfile builder (needs a container registry).
 *
 * - image size: the default image, its base, and Cortex's layer (the difference)
 * - build time: Cortex's layer FROM the local base (what a recipe change outside packages.txt
 *   costs); with BENCH_REBUILD the debootstrap base too; with BENCH_DOCKERFILE the online base
 * - `npm test` of through@2.3.8 (its own test suite, devDependencies installed on the host): guest
 *   `bash` tool call vs the host, median of BENCH_N runs, as a ratio
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildCortexLayer, chooseBuilder, dockerImageExists } from '../src/main/guest/environment/builders'
import { baseImageTag, type BuilderKind } from '../src/main/guest/environment/recipe'
import { DockerGuestProvider } from '../src/main/guest/docker-guest'
import { ensureGuestImage } from '../src/main/guest/image'
import { guestRecipeDir } from '../src/main/guest/paths'
import { TOOL_CATALOG } from '../src/main/tools/catalog'
import { makeRegistryRepo } from '../test/support/npm-repo'
import { pct, row, sample, sh, time, toolContext } from './support'

const N = Number(process.env.BENCH_N ?? 5)
const out = (s: string) => process.stdout.write(s + '\n')
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`
const size = (tag: string): number => Number(sh('docker', ['image', 'inspect', '--format', '{{.Size}}', tag]).trim())

/**
 * A copy of the recipe (removed by the caller) whose tags are new: packages.txt gets a comment line;
 * the Dockerfile a label right after FROM, so no step of Cortex's layer comes from the build cache.
 */
function recipeVariant(file: 'packages.txt' | 'Dockerfile'): string {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-bench-recipe-'))
  cpSync(guestRecipeDir(), dir, { recursive: true })
  const mark = randomBytes(4).toString('hex')
  const p = join(dir, file)
  if (file === 'packages.txt') appendFileSync(p, `\n# bench ${mark}\n`)
  else writeFileSync(p, readFileSync(p, 'utf8').replace(/^FROM .*$/m, (l) => `${l}\nLABEL dev.cortex.bench=${mark}`))
  return dir
}

async function timeBase(kind: BuilderKind): Promise<void> {
  const dir = recipeVariant('packages.txt')
  const base = baseImageTag(dir, kind)
  try {
    const argv = kind === 'debootstrap'
      ? ['bash', join(dir, 'build-image.sh'), base]
      : ['docker', 'build', '-f', join(dir, 'Dockerfile.base'), '--build-arg', `PACKAGES=${sh('sh', ['-c', `grep -v '^#' ${join(dir, 'packages.txt')} | tr -s '[:space:]' ' '`])}`, '-t', base, dir]
    const t0 = Date.now()
    const r = spawnSync(argv[0] as string, argv.slice(1), { stdio: 'ignore' })
    const s = (Date.now() - t0) / 1000
    out(r.status === 0 ? `build: ${kind} base from scratch                      ${s.toFixed(0)} s, ${mb(size(base))}` : `build: ${kind} base failed (exit ${r.status}) after ${s.toFixed(0)} s`)
  } finally {
    spawnSync('docker', ['rmi', '-f', base], { stdio: 'ignore' })
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const { tag } = await ensureGuestImage()
  const choice = chooseBuilder()
  const base = baseImageTag(guestRecipeDir(), choice.kind)
  out(`# bench/guest-image — ${tag}, builder here: ${choice.kind} (${choice.reason}), ${new Date().toISOString()}`)
  if (await dockerImageExists(base)) {
    out(`size: image ${mb(size(tag))} = base ${mb(size(base))} (Debian packages) + Cortex's layer ${mb(size(tag) - size(base))} (Node, npm, corepack)`)
  } else out(`size: image ${mb(size(tag))} (base ${base} not present to split it)`)

  // Cortex's layer FROM the local base, as CI builds it after a change outside packages.txt
  const dir = recipeVariant('Dockerfile')
  const layerTag = `cortex-guest-bench:${randomBytes(4).toString('hex')}`
  try {
    if (await dockerImageExists(base)) {
      const s = (await time(() => buildCortexLayer(dir, base, layerTag, () => undefined))) / 1000
      out(`build: Cortex's layer FROM the local base (network none)   ${s.toFixed(1)} s (no build cache; npm pack from npm's cache)`)
    }
  } finally {
    spawnSync('docker', ['rmi', '-f', layerTag], { stdio: 'ignore' })
    rmSync(dir, { recursive: true, force: true })
  }
  if (process.env.BENCH_REBUILD === '1') await timeBase('debootstrap')
  else out('build: debootstrap base from scratch: set BENCH_REBUILD=1 (a few minutes; ADR 0030 has the figure)')
  if (process.env.BENCH_DOCKERFILE === '1') await timeBase('dockerfile')
  else out('build: Dockerfile base: set BENCH_DOCKERFILE=1 where a container registry is reachable (none here)')

  // npm test of a real project: guest (bash tool) vs host
  const repo = makeRegistryRepo('through@2.3.8')
  const provider = new DockerGuestProvider({ image: tag })
  const guest = await provider.start({ sessionId: `bench-${randomBytes(3).toString('hex')}`, repo: repo.dir })
  try {
    const bash = TOOL_CATALOG.bash
    const host = await sample(N, () => {
      const r = spawnSync('npm', ['test'], { cwd: repo.dir, stdio: 'ignore' })
      if (r.status !== 0) throw new Error(`npm test on the host exited ${r.status}`)
    })
    const inGuest = await sample(N, async () => {
      const r = await bash.execute({ command: 'npm test' }, toolContext(guest))
      if (!r.output.startsWith('exit_code: 0\n')) throw new Error(`npm test in the guest: ${r.output.slice(0, 300)}`)
    })
    row('npm test (through@2.3.8) on the host', host)
    row('npm test (through@2.3.8) in the guest, bash tool', inGuest, `ratio ${(pct(inGuest, 50) / pct(host, 50)).toFixed(2)}×`)
  } finally {
    await guest.close()
    repo.cleanup()
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`)
  process.exitCode = 1
})
