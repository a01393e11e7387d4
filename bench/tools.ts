/**
 * bench/tools: the search and read tools on a large real tree (the unpacked `typescript` npm
 * package, copied from node_modules) beside ripgrep run directly in the same guest.
 * Run: `npx tsx bench/tools.ts` (needs Docker and the guest image).
 *
 * - grep for a common identifier vs `rg -n IDENT` (target ≤ 1.3×)
 * - glob `**\/*.ts` vs `rg --files -g '*.ts'` (target ≤ 1.3×)
 * - read_file of a 10 MB file's first page (target < 50 ms, bounded memory)
 * - read_file's first page of a 50 MB single-line file, and a page at line 5,000,000 of a 1 GiB
 *   file (target about 1 s each; both were 35 s and 51 s when the host streamed the file)
 */
import { closeSync, cpSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { DockerGuestProvider } from '../src/main/guest/docker-guest'
import { ensureGuestImage } from '../src/main/guest/image'
import { TOOL_CATALOG } from '../src/main/tools/catalog'
import { makeRepo, pct, row, sample, sh, toolContext } from './support'

const N = Number(process.env.BENCH_N ?? 10)
const IDENT = process.env.BENCH_IDENT ?? 'getSourceFile'
const out = (s: string) => process.stdout.write(s + '\n')

async function main(): Promise<void> {
  const { tag } = await ensureGuestImage()
  const repo = makeRepo()
  cpSync(resolve('node_modules/typescript'), join(repo, 'typescript'), { recursive: true })
  const line = 'const value = computeSomething(input) // a typical line of source code, about 80 chars\n'
  writeFileSync(join(repo, 'big.txt'), line.repeat(Math.ceil(10_000_000 / line.length)))
  // The large files sit in an ignored folder so they do not weigh on the grep/glob comparisons.
  mkdirSync(join(repo, 'large'))
  writeFileSync(join(repo, '.ignore'), 'large/\n')
  writeFileSync(join(repo, 'large', 'one-line.txt'), Buffer.alloc(50 * 1024 * 1024, 'y'))
  const fd = openSync(join(repo, 'large', 'huge.txt'), 'w')
  const block = line.repeat(10_000)
  for (let written = 0; written < 2 ** 30; written += block.length) writeSync(fd, block)
  closeSync(fd)
  if (process.getuid?.() === 0) sh('chown', ['-R', '4242:4242', repo])
  const guest = await new DockerGuestProvider({ image: tag }).start({ sessionId: 'bench-tools', repo })
  const ctx = toolContext(guest)
  const files = sh('find', [repo, '-type', 'f']).split('\n').length - 1
  out(`# bench/tools — ${files} files, ${sh('du', ['-sh', repo]).split('\t')[0]} (typescript package, a 10 MB file, a 50 MB single-line file and a 1 GiB file), ${N} samples each`)

  const rg = (argv: string[]) => () => guest.spawn({ argv, cwd: repo, timeoutMs: 60_000, maxOutputBytes: 64 * 2 ** 20 })
  const rgGrep = await sample(N, rg(['rg', '--line-number', '--no-heading', '--color', 'never', IDENT]))
  const toolGrep = await sample(N, () => TOOL_CATALOG.grep.execute({ pattern: IDENT }, ctx))
  row(`baseline: rg -n ${IDENT} (in the guest)`, rgGrep)
  row(`grep ${IDENT}`, toolGrep, `ratio ${(pct(toolGrep, 50) / pct(rgGrep, 50)).toFixed(2)}× (target ≤ 1.3×)`)

  const rgFiles = await sample(N, rg(['rg', '--files', '-g', '*.ts']))
  const toolGlob = await sample(N, () => TOOL_CATALOG.glob.execute({ pattern: '**/*.ts' }, ctx))
  row("baseline: rg --files -g '*.ts' (in the guest)", rgFiles)
  row('glob **/*.ts', toolGlob, `ratio ${(pct(toolGlob, 50) / pct(rgFiles, 50)).toFixed(2)}× (target ≤ 1.3×)`)

  const before = process.memoryUsage().rss
  const read = await sample(N, () => TOOL_CATALOG.read_file.execute({ path: 'big.txt' }, ctx))
  const grown = (process.memoryUsage().rss - before) / 2 ** 20
  row('read_file first page of a 10 MB file', read, `(target < 50 ms) main RSS change ${grown.toFixed(1)} MiB`)

  const oneLine = await sample(Math.min(N, 5), () => TOOL_CATALOG.read_file.execute({ path: 'large/one-line.txt' }, ctx))
  row('read_file first page, 50 MB single line', oneLine, '(target ≈ 1 s; was 35 s)')
  const deep = await sample(Math.min(N, 5), () => TOOL_CATALOG.read_file.execute({ path: 'large/huge.txt', offset: 5_000_000, limit: 100 }, ctx))
  row('read_file at line 5,000,000 of a 1 GiB file', deep, '(target ≈ 1 s; was 51 s)')

  await guest.close()
  rmSync(repo, { recursive: true, force: true })
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/tools failed: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
