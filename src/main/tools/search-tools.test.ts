// glob and grep against a real Docker guest running ripgrep (one guest for the file).
import { beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import { makeContext, runTool, type RecordingContext } from './test-support'
import { GLOB_MAX_RESULTS } from './glob'
import { GREP_MAX_LINES } from './grep'

const bulk: Record<string, string> = {}
for (let i = 0; i < GLOB_MAX_RESULTS + 20; i++) bulk[`bulk/f${String(i).padStart(4, '0')}.txt`] = 'needle\n'

describe.skipIf(skipWithoutDocker())('search tools in a real guest', () => {
  let ctx: RecordingContext

  beforeAll(async () => {
    const repo = await makeTestRepo({
      'README.md': '# Title\nSee TODO list\n',
      'src/a.ts': 'export function alpha() {\n  return 1 // TODO tidy\n}\n',
      'src/sub/b.ts': 'import { alpha } from "../a"\nconst Beta = alpha()\n',
      'src/c.js': 'todo lower\n',
      '.hidden/h.ts': 'TODO hidden\n',
      'ignored/x.ts': 'TODO ignored\n',
      'opts.sh': 'run --verbose\n',
      'data/blob.bin': Buffer.concat([Buffer.from('marker one\n'), Buffer.from([0, 1, 2, 0x1b, 0x5b]), Buffer.from('\nmarker two\n')]),
      'data/plain.txt': 'marker here\n',
      'data/min.js': `${'a'.repeat(50_000)}NEEDLE${'b'.repeat(50_000)}\n`,
      'data/latin1.txt': Buffer.from('caf\xe9 au lait\n', 'latin1'),
      '.gitignore': 'ignored/\n*.log\n',
      'build.log': 'log\n',
      '.config/settings.json': '{}\n',
      'names/with space.txt': 'x',
      'names/nb\u00a0sp.txt': 'x',
      'names/cafe\u0301.txt': 'x',
      ...bulk
    })
    ctx = makeContext(await startTestGuest(repo))
  })

  describe('glob', () => {
    it('lists matching files sorted by path, workspace-relative, hidden included, ignored and .git excluded', async () => {
      const r = await runTool('glob', { pattern: '**/*.ts' }, ctx)
      expect(r.isError).toBe(false)
      const files = r.output.split('\n\n')[0]?.split('\n')
      expect(files).toEqual(['.hidden/h.ts', 'src/a.ts', 'src/sub/b.ts'])
      expect(r.output).toMatch(/3 files, sorted by path/)
      expect((await runTool('glob', { pattern: '**/config' }, ctx)).output).toMatch(/No files match/)
    })
    it('matches relative to path and prefixes results with it', async () => {
      const r = await runTool('glob', { pattern: 'sub/*.ts', path: 'src' }, ctx)
      expect(r.output.split('\n')[0]).toBe('src/sub/b.ts')
      const names = await runTool('glob', { pattern: '*.{js,ts}', path: 'src' }, ctx)
      expect(names.output.split('\n\n')[0]?.split('\n')).toEqual(['src/a.ts', 'src/c.js', 'src/sub/b.ts'])
    })
    it(`caps at ${GLOB_MAX_RESULTS} with "showing N of M"`, async () => {
      const r = await runTool('glob', { pattern: 'bulk/*.txt' }, ctx)
      const files = r.output.split('\n\n')[0]?.split('\n') ?? []
      expect(files).toHaveLength(GLOB_MAX_RESULTS)
      expect(files[0]).toBe('bulk/f0000.txt')
      expect(r.output).toMatch(new RegExp(`Showing ${GLOB_MAX_RESULTS} of ${GLOB_MAX_RESULTS + 20} files`))
    })
    it('finds an explicitly named ignored path but leaves ignored files out of broad patterns', async () => {
      expect((await runTool('glob', { pattern: '**/*.log' }, ctx)).output).toMatch(/No files match/)
      const named = await runTool('glob', { pattern: 'ignored/*.ts' }, ctx)
      expect(named.output.split('\n')[0]).toBe('ignored/x.ts')
      expect(named.output).toMatch(/ignored by \.gitignore/)
      expect((await runTool('glob', { pattern: 'build.log' }, ctx)).output.split('\n')[0]).toBe('build.log')
    })
    it('includes dot-directories and keeps names byte-exact (space, NBSP, NFD)', async () => {
      const r = await runTool('glob', { pattern: '**/*.json' }, ctx)
      expect(r.output.split('\n')[0]).toBe('.config/settings.json')
      const names = (await runTool('glob', { pattern: 'names/*' }, ctx)).output.split('\n\n')[0]?.split('\n')
      expect(names).toEqual(['names/cafe\u0301.txt', 'names/nb\u00a0sp.txt', 'names/with space.txt'])
      for (const n of names ?? []) expect((await runTool('read_file', { path: n }, ctx)).isError, n).toBe(false)
    })
    it('reports a bad glob, a file path and an outside path as errors', async () => {
      expect((await runTool('glob', { pattern: '{' }, ctx)).output).toMatch(/ripgrep error: .*glob/)
      expect((await runTool('glob', { pattern: '*', path: 'README.md' }, ctx)).output).toMatch(/not a directory/)
      expect((await runTool('glob', { pattern: '*', path: '/etc' }, ctx)).output).toMatch(/outside the workspace/)
    })
  })

  describe('grep', () => {
    it('finds matches as path:line:text sorted by path', async () => {
      const r = await runTool('grep', { pattern: 'TODO' }, ctx)
      expect(r.isError).toBe(false)
      expect(r.output.split('\n')).toEqual(['.hidden/h.ts:1:TODO hidden', 'README.md:2:See TODO list', 'src/a.ts:2:  return 1 // TODO tidy'])
    })
    it('supports case_insensitive, glob, path (dir and file) and context', async () => {
      const ci = await runTool('grep', { pattern: 'todo', case_insensitive: true, path: 'src' }, ctx)
      expect(ci.output.split('\n')).toEqual(['src/a.ts:2:  return 1 // TODO tidy', 'src/c.js:1:todo lower'])
      const g = await runTool('grep', { pattern: 'alpha', glob: 'sub/*.ts', path: 'src' }, ctx)
      expect(g.output.split('\n')).toEqual(['src/sub/b.ts:1:import { alpha } from "../a"', 'src/sub/b.ts:2:const Beta = alpha()'])
      const f = await runTool('grep', { pattern: 'Beta', path: 'src/sub/b.ts' }, ctx)
      expect(f.output).toBe('src/sub/b.ts:2:const Beta = alpha()')
      const c = await runTool('grep', { pattern: 'return', path: 'src', context: 1 }, ctx)
      expect(c.output.split('\n')).toEqual(['src/a.ts-1-export function alpha() {', 'src/a.ts:2:  return 1 // TODO tidy', 'src/a.ts-3-}'])
    })
    it('takes patterns and globs that start with a dash as values, not flags', async () => {
      expect((await runTool('grep', { pattern: '--verbose' }, ctx)).output).toBe('opts.sh:1:run --verbose')
      expect((await runTool('grep', { pattern: 'verbose', glob: '-*' }, ctx)).output).toMatch(/No matches/)
    })
    it('says "No matches" for no match (not an error) and reports regex errors with rg\'s message', async () => {
      const none = await runTool('grep', { pattern: 'zzz_not_here' }, ctx)
      expect(none).toEqual({ output: 'No matches for "zzz_not_here" in the workspace.', isError: false })
      const bad = await runTool('grep', { pattern: '(unclosed' }, ctx)
      expect(bad.isError).toBe(true)
      expect(bad.output).toMatch(/regex parse error[\s\S]*unclosed group/)
      expect((await runTool('grep', { pattern: 'x', path: '../..' }, ctx)).output).toMatch(/outside the workspace/)
    })
    it(`caps output at ${GREP_MAX_LINES} lines with a notice`, async () => {
      const r = await runTool('grep', { pattern: 'needle', path: 'bulk' }, ctx)
      const [body, notice] = r.output.split('\n\n')
      expect(body?.split('\n')).toHaveLength(GREP_MAX_LINES)
      expect(body?.split('\n')[0]).toBe('bulk/f0000.txt:1:needle')
      expect(notice).toMatch(new RegExp(`first ${GREP_MAX_LINES} output lines; the search was stopped there`))
      expect(notice).toMatch(/Narrow it/)
    })
    it('stops the search process at the cap (a 3-million-match file returns promptly, no rg left)', async () => {
      const bash = await runTool('bash', { command: "yes 'needle in a haystack' | head -n 3000000 > huge.txt" }, ctx)
      expect(bash.output).toMatch(/^exit_code: 0$/m)
      const t0 = Date.now()
      const r = await runTool('grep', { pattern: 'needle', path: 'huge.txt' }, ctx)
      expect(Date.now() - t0).toBeLessThan(20_000) // hang guard: ~2 s expected; the full 3 M-line search is what it guards against
      expect(r.output.split('\n\n')[0]?.split('\n')).toHaveLength(GREP_MAX_LINES)
      expect(r.output).toMatch(/search was stopped/)
      const ps = await runTool('bash', { command: 'sleep 0.5; rm huge.txt; ps -eo comm= | grep -c "^rg$" || true' }, ctx)
      expect(ps.output).toMatch(/stdout:\n0$/m)
    })
    it('reports binary matches as a notice, never raw bytes, and still finds the text around them', async () => {
      const r = await runTool('grep', { pattern: 'marker', path: 'data' }, ctx)
      expect(r.output).toMatch(/^data\/blob\.bin: binary file matches \(2 matching lines; NUL byte at offset \d+\)/m)
      // eslint-disable-next-line no-control-regex
      expect(r.output).not.toMatch(/[\u0000-\u0008]/)
      expect(r.output).toMatch(/1 binary file matched/)
      expect(r.output).toContain('data/plain.txt:1:marker here')
    })
    it('shows a very long line as a window around the match with its column', async () => {
      const r = await runTool('grep', { pattern: 'NEEDLE', path: 'data/min.js' }, ctx)
      const col = 50_001
      expect(r.output).toMatch(new RegExp(`^data/min\\.js:1:….*NEEDLE.*… \\[match at column ${col} of a 100006-character line; window shown\\]$`))
      expect(r.output.length).toBeLessThan(600)
    })
    it('shows non-UTF-8 lines decoded as Windows-1252 and marked, not with U+FFFD', async () => {
      const r = await runTool('grep', { pattern: 'caf', path: 'data/latin1.txt' }, ctx)
      expect(r.output).toBe('data/latin1.txt:1:café au lait [not UTF-8; shown as Windows-1252]')
    })
  })
})
