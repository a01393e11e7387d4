// `cortex --version` and `--help` load only what they need (issue 11, ADR 0015): the built CLI runs
// under a module hook that records every module it resolves, and none of the heavy ones (the session
// service chunk, which bundles zod, the AI SDK and dockerode; ws) may be among them. `cortex sessions`, which needs
// the session service, shows the hook sees them when they do load (so the check can fail). A whole
// `cortex run` (issue 24, ADR 0015) loads no package it never uses: not dockerode's BuildKit and SSH
// dependencies (gRPC, protobufjs, ssh2), no package file one by one that the bundle holds, and
// calls nothing that starts ICU (test/support/record-intl.mjs).
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../src/shared/events'
import { CORTEX_VERSION } from '../../src/shared/version'
import { CLI } from '../support/cli'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer } from '../support/scripted-model-server'

const HEAVY = [/^dockerode$/, /^ai$/, /^@ai-sdk\//, /^zod(\/|$)/, /^ws$/, /chunks\/session-/, /chunks\/run-command-/]
const dir = mkdtempSync(join(tmpdir(), 'cortex-imports-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Run the built CLI with `args` under the recording hook; its exit status, stdout and the specifiers it resolved. */
function recorded(args: string[]): { status: number | null; stdout: string; loaded: string[] } {
  const file = join(dir, `${args.join('_').replace(/\W/g, '')}.txt`)
  const r = spawnSync(process.execPath, ['--import', resolve('test/support/record-imports.mjs'), CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CORTEX_RECORD_IMPORTS: file, CORTEX_HOME: join(dir, 'home') },
    timeout: 60_000
  })
  const loaded = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []
  return { status: r.status, stdout: r.stdout, loaded }
}

const heavyIn = (loaded: string[]): string[] => loaded.filter((l) => HEAVY.some((h) => h.test(l.split(' -> ')[0]!) || h.test(l.split(' -> ')[1] ?? '')))

describe('cortex start-up imports', () => {
  it('--version loads the entry chunk (commander bundled in) and no package from node_modules, nothing heavy', () => {
    const r = recorded(['--version'])
    expect(r.status).toBe(0)
    expect(r.stdout.trim()).toBe(CORTEX_VERSION)
    expect(r.loaded.some((l) => /out\/cli\/index\.mjs$/.test(l))).toBe(true)
    expect(r.loaded.filter((l) => l.includes('/node_modules/'))).toEqual([])
    expect(heavyIn(r.loaded)).toEqual([])
  })

  it('--help and `run --help` load nothing heavy either', () => {
    for (const args of [['--help'], ['run', '--help']]) {
      const r = recorded(args)
      expect(r.status).toBe(0)
      expect(r.stdout).toContain('Usage: cortex')
      expect(heavyIn(r.loaded)).toEqual([])
    }
  })

  it('`run --json` loads no terminal UI or Markdown renderer (Ink, React, marked-terminal, highlight.js)', () => {
    // no base URL: the run fails fast with a configuration error, after its modules have loaded
    const r = recorded(['run', '--repo', dir, '--provider', 'openai-compatible', '--model', 'm', '--json', 'hi'])
    expect(r.status).toBe(1)
    expect(r.loaded.some((l) => /chunks\/run-command-/.test(l))).toBe(true)
    const ui = r.loaded.filter((l) => /^(ink|react|marked-terminal|highlight\.js|cli-highlight)(\/|$)/.test(l.split(' -> ')[0]!))
    expect(ui).toEqual([])
  })

  it('a command that needs the session service does load it (the hook sees heavy modules)', () => {
    const r = recorded(['sessions'])
    expect(r.status).toBe(0)
    const heavy = heavyIn(r.loaded).map((l) => l.split(' -> ')[0]!)
    expect(heavy.some((s) => /session-[\w-]+\.mjs$/.test(s))).toBe(true) // the chunk with the session service (zod, the AI SDK and dockerode bundled in)
  })

  it('the Markdown renderer loads highlight.js only for the first code block it highlights', () => {
    // the chunk(s) `cortex run` on a terminal (and the TUI) load before the first request: the one exporting renderMarkdown
    const chunks = readdirSync(resolve('out/cli/chunks')).filter((f) => /^markdown-[\w-]+\.mjs$/.test(f)).map((f) => pathToFileURL(resolve('out/cli/chunks', f)).href)
    const file = join(dir, 'markdown.txt')
    const script = [
      `let renderMarkdown; for (const u of ${JSON.stringify(chunks)}) renderMarkdown ??= (await import(u)).renderMarkdown`,
      `const { appendFileSync } = await import('node:fs')`,
      `const mark = (m) => appendFileSync(${JSON.stringify(file)}, m + '\\n')`,
      `mark('@@loaded'); process.stdout.write(JSON.stringify(renderMarkdown('# Title\\n\\nplain *text*', 80)) + '\\n')`,
      `mark('@@prose'); process.stdout.write(JSON.stringify(renderMarkdown('\\x60\\x60\\x60js\\nconst x = 1\\n\\x60\\x60\\x60', 80)) + '\\n')`
    ].join('\n')
    const r = spawnSync(process.execPath, ['--import', resolve('test/support/record-imports.mjs'), '--input-type=module', '-e', script], {
      encoding: 'utf8', env: { ...process.env, CORTEX_RECORD_IMPORTS: file, FORCE_COLOR: '1' }, timeout: 60_000
    })
    expect(r.status, r.stderr).toBe(0)
    const [prose, code] = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as string)
    expect(prose).toContain('Title')
    expect(code).toContain('\u001b[34mconst\u001b[39m') // highlighted (a keyword in blue)
    const lines = readFileSync(file, 'utf8').split('\n')
    const beforeCode = lines.slice(0, lines.indexOf('@@prose'))
    expect(beforeCode.filter((l) => /highlight\.js|cli-highlight/.test(l))).toEqual([])
    expect(lines.slice(lines.indexOf('@@prose')).some((l) => /node_modules\/highlight\.js\//.test(l))).toBe(true)
  })

  it("dockerode's parts left out of the bundle still load from the built CLI when called (an ssh:// DOCKER_HOST, a BuildKit build, a build from a folder)", () => {
    // the session chunk (the largest of its name: a small facade chunk may share it)
    const chunk = readdirSync(resolve('out/cli/chunks'))
      .filter((f) => /^session-[\w-]+\.mjs$/.test(f))
      .sort((a, b) => statSync(resolve('out/cli/chunks', b)).size - statSync(resolve('out/cli/chunks', a)).size)[0]!
    const source = readFileSync(resolve('out/cli/chunks', chunk), 'utf8')
    const requireFromChunk = createRequire(resolve('out/cli/chunks', chunk))
    for (const file of ['docker-modem/lib/ssh.js', 'dockerode/lib/session.js', 'dockerode/lib/buildkit.js', 'tar-fs/index.js']) {
      expect(source).toContain(`__require(${JSON.stringify(file)})`)
      expect(() => requireFromChunk.resolve(file)).not.toThrow()
    }
  })

  it("the packages Cortex's code calls only after start-up are left out of the bundle and load from the built CLI when called; the AI Gateway is left out", () => {
    const chunks = readdirSync(resolve('out/cli/chunks')).filter((f) => f.endsWith('.mjs'))
    const sources = chunks.map((f) => readFileSync(resolve('out/cli/chunks', f), 'utf8'))
    // rolldown marks each bundled package's code with a `// node_modules/<pkg>/...` region comment
    for (const pkg of ['yaml', 'diff', 'image-size', 'unbash', '@ai-sdk/gateway']) expect(sources.filter((s) => s.includes(`// node_modules/${pkg}/`))).toEqual([])
    const withStandIn = chunks.filter((_, i) => sources[i]!.includes('createRequire(import.meta.url)("yaml")'))
    expect(withStandIn.length).toBe(1)
    const requireFromChunk = createRequire(resolve('out/cli/chunks', withStandIn[0]!))
    expect(requireFromChunk('yaml').parse('description: hi\n')).toEqual({ description: 'hi' })
    expect(requireFromChunk('diff').structuredPatch('a', 'a', 'x\n', 'y\n').hunks).toHaveLength(1)
    expect(typeof requireFromChunk('image-size').imageSize).toBe('function')
    // unbash ships only as ES modules: vite.lazy.config.mts builds it as one CommonJS file beside the chunks
    expect(sources[chunks.indexOf(withStandIn[0]!)]).toContain('createRequire(import.meta.url)("./lazy-unbash.cjs")')
    expect(requireFromChunk('./lazy-unbash.cjs').parse('git status | wc -l').commands).toHaveLength(1)
  })

  it.skipIf(skipWithoutDocker())('a whole `cortex run` with a guest loads no gRPC, protobufjs or ssh2, and no package file by file', async () => {
    const repo = mkdtempSync(join(dir, 'repo-'))
    writeFileSync(join(repo, 'a.txt'), 'a\n')
    chmodSync(repo, 0o755)
    if (process.getuid?.() === 0) for (const p of [repo, join(repo, 'a.txt')]) chownSync(p, TEST_REPO_UID, TEST_REPO_GID)
    const server = await startScriptedModelServer([{ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }, { text: 'done' }])
    try {
      const file = join(dir, 'run.txt')
      const intl = join(dir, 'run-intl.txt')
      const child = spawn(process.execPath, ['--import', resolve('test/support/record-imports.mjs'), '--import', resolve('test/support/record-intl.mjs'), CLI, 'run', '--repo', repo, '--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'scripted', '--json', 'read a.txt'], {
        env: { ...process.env, CORTEX_RECORD_IMPORTS: file, CORTEX_RECORD_INTL: intl, CORTEX_HOME: join(dir, 'home') },
        stdio: ['ignore', 'pipe', 'inherit']
      })
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
      const code = await new Promise<number | null>((done) => child.on('close', done))
      expect(code).toBe(0)
      // the run did reach the guest: the read_file call ran there
      const events = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as EventEnvelope)
      const read = events.map((e) => e.event).find((e) => e.type === 'tool_call_finished')
      expect(read).toMatchObject({ name: 'read_file', isError: false })
      const loaded = readFileSync(file, 'utf8').trim().split('\n')
      // dockerode is bundled; its BuildKit session and progress parser and docker-modem's SSH transport load only when called
      expect(loaded.filter((l) => /node_modules\/(@grpc|protobufjs|ssh2|cpu-features)\//.test(l))).toEqual([])
      // nothing is read from node_modules one module at a time (zod, the AI SDK, dockerode and commander are bundled; yaml, diff and image-size load on first call, and a read_file calls none)
      expect(loaded.filter((l) => l.includes('/node_modules/'))).toEqual([])
      expect(loaded.filter((l) => l.includes('lazy-unbash'))).toEqual([]) // no bash call, no shell parser
      // nothing starts ICU (10–20 ms of CPU on the first Intl call): the tool descriptions' numbers and the environment block's date and zone are written without it
      expect(existsSync(intl) ? readFileSync(intl, 'utf8').trim().split('\n') : []).toEqual([])
      // the providers it does not use stay unloaded (lazy-model.ts): no loaded chunk holds the anthropic or openai SDK
      const chunks = [...new Set(loaded.map((l) => l.split(' -> ')[1] ?? '').filter((u) => u.startsWith('file:') && u.endsWith('.mjs')))]
      expect(chunks.length).toBeGreaterThan(2)
      const sdkIn = (u: string): boolean => /^\/\/ node_modules\/@ai-sdk\/(anthropic|openai)\//m.test(readFileSync(new URL(u), 'utf8'))
      expect(chunks.filter(sdkIn)).toEqual([])
      // while the built CLI does hold them, for the processes that use them
      const all = readdirSync(resolve('out/cli/chunks')).filter((f) => f.endsWith('.mjs')).map((f) => pathToFileURL(resolve('out/cli/chunks', f)).href)
      expect(all.filter(sdkIn).length).toBeGreaterThanOrEqual(2)
    } finally {
      await server.close()
    }
  }, 60_000)
})
