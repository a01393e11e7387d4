// `cortex --version` and `--help` load only what they need (issue 11, ADR 0015): the built CLI runs
// under a module hook that records every module it resolves, and none of the heavy ones (the session
// service chunk, which bundles zod and the AI SDK; dockerode; ws) may be among them. `cortex sessions`, which needs
// the session service, shows the hook sees them when they do load (so the check can fail).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CORTEX_VERSION } from '../../src/shared/version'
import { CLI } from '../support/cli'

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
  it('--version loads commander and the entry chunk, nothing heavy', () => {
    const r = recorded(['--version'])
    expect(r.status).toBe(0)
    expect(r.stdout.trim()).toBe(CORTEX_VERSION)
    expect(r.loaded.some((l) => l.startsWith('commander '))).toBe(true)
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
    expect(heavy).toContain('dockerode')
    expect(heavy.some((s) => /session-[\w-]+\.mjs$/.test(s))).toBe(true) // the chunk with the session service (zod and the AI SDK bundled in)
  })
})
