// The import rules of eslint.config.mjs really fail: probe files, one per forbidden edge, are
// written into temporary folders inside src/ (each in the layer it probes), linted with the
// project's config through the ESLint Node API, and removed; each must yield an import-rule error
// on its import line, and each allowed edge must yield none. Probes also cover .js/.mjs/.cjs files,
// a cycle between two files (import-x/no-cycle really runs), and main/session/index.ts's public
// surface (its text replaced in memory, never on disk). A config change that opens a hole, or
// one that bans a legitimate edge, fails here. CORTEX_LINT_CONFIG names another config file to
// check instead (e.g. an older eslint.config.mjs copied elsewhere, to see this test fail on it).
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ESLint } from 'eslint'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const CONFIG = resolve(process.env.CORTEX_LINT_CONFIG ?? join(ROOT, 'eslint.config.mjs'))

/** The rules that state the layers; any of them reporting on the import line counts. */
const IMPORT_RULES = new Set([
  'import-x/no-restricted-paths',
  'import-x/no-unresolved',
  'import-x/no-cycle',
  'no-restricted-imports',
  'no-restricted-syntax',
  '@typescript-eslint/no-restricted-imports'
])

/**
 * One probe: a file in folder `in` (relative to the repository) whose first line imports `imports`
 * — a repository path without extension (made relative to the probe), or a package name when
 * `pkg` is set; `via` inserts a detour (`../main/session/../store/x`); `kind: 'type'` writes
 * `import type`. `allowed` probes must lint clean of import-rule errors; the others must not.
 */
interface Probe {
  name: string
  in: string
  imports: string
  pkg?: boolean
  kind?: 'value' | 'type'
  via?: string
  /** The probe file's extension (default `ts`); `cjs` writes `require()`. */
  ext?: 'ts' | 'js' | 'mjs' | 'cjs'
  /** A second probe file beside this one imports it back: a two-file cycle (`imports` unused). */
  cycle?: boolean
  allowed?: boolean
}

const forbidden: Probe[] = [
  // Adapters: only main/session's index and shared.
  { name: 'cli imports main/guest/docker-guest', in: 'src/cli', imports: 'src/main/guest/docker-guest' },
  { name: 'cli imports main/store/session-store', in: 'src/cli', imports: 'src/main/store/session-store' },
  { name: 'cli imports main/session/session (not the index)', in: 'src/cli', imports: 'src/main/session/session' },
  { name: 'cli imports main/harness/turn-loop', in: 'src/cli', imports: 'src/main/harness/turn-loop' },
  { name: 'cli imports the preload', in: 'src/cli', imports: 'src/preload/index' },
  { name: 'cli imports the renderer', in: 'src/cli', imports: 'src/renderer/src/api' },
  { name: 'cli imports electron', in: 'src/cli', imports: 'electron', pkg: true },
  { name: 'cli reaches the store through a ../ detour', in: 'src/cli', imports: 'src/main/store/session-store', via: 'src/main/session' },
  { name: 'cli imports a path that does not resolve', in: 'src/cli', imports: 'src/main/guest/no-such-module' },
  { name: 'web imports main/tools/catalog', in: 'src/web', imports: 'src/main/tools/catalog' },
  { name: 'web imports main/guest/docker-guest', in: 'src/web', imports: 'src/main/guest/docker-guest' },
  { name: 'web imports cli', in: 'src/web', imports: 'src/cli/program' },
  { name: 'web imports the preload', in: 'src/web', imports: 'src/preload/index' },
  { name: 'ipc imports main/guest/warm-pool', in: 'src/main/ipc', imports: 'src/main/guest/warm-pool' },
  { name: 'ipc imports main/store/session-store', in: 'src/main/ipc', imports: 'src/main/store/session-store' },
  // Harness: tools, providers, shared and guest types only.
  { name: 'harness imports main/guest/docker-guest', in: 'src/main/harness', imports: 'src/main/guest/docker-guest' },
  { name: 'harness imports a value from main/guest/warm-pool', in: 'src/main/harness', imports: 'src/main/guest/warm-pool' },
  { name: 'harness imports main/store/session-store', in: 'src/main/harness', imports: 'src/main/store/session-store' },
  { name: 'harness imports main/session', in: 'src/main/harness', imports: 'src/main/session/index' },
  { name: 'harness imports dockerode', in: 'src/main/harness', imports: 'dockerode', pkg: true },
  { name: 'harness imports electron', in: 'src/main/harness', imports: 'electron', pkg: true },
  // Tools: guest types and shared.
  { name: 'tools import providers', in: 'src/main/tools', imports: 'src/main/providers/index' },
  { name: 'tools import harness', in: 'src/main/tools', imports: 'src/main/harness/turn-loop' },
  { name: 'tools import a value from main/guest/docker-guest', in: 'src/main/tools', imports: 'src/main/guest/docker-guest' },
  { name: 'tools import main/store', in: 'src/main/tools', imports: 'src/main/store/session-store' },
  // Providers: neither guest nor store.
  { name: 'providers import main/guest/guest', in: 'src/main/providers', imports: 'src/main/guest/guest' },
  { name: 'providers import main/store/session-store', in: 'src/main/providers', imports: 'src/main/store/session-store' },
  { name: 'providers import main/tools', in: 'src/main/providers', imports: 'src/main/tools/catalog' },
  // Lower layers never import upward.
  { name: 'store imports harness', in: 'src/main/store', imports: 'src/main/harness/turn-loop' },
  { name: 'guest imports tools', in: 'src/main/guest', imports: 'src/main/tools/catalog' },
  { name: 'session imports main/ipc', in: 'src/main/session', imports: 'src/main/ipc/index' },
  // dockerode: only main/guest/docker-guest.ts.
  { name: 'another main/guest file imports dockerode', in: 'src/main/guest', imports: 'dockerode', pkg: true },
  { name: 'session imports dockerode', in: 'src/main/session', imports: 'dockerode', pkg: true },
  // electron: only main/index.ts, main/app, main/ipc and the preload.
  { name: 'session imports electron', in: 'src/main/session', imports: 'electron', pkg: true },
  { name: 'guest imports electron', in: 'src/main/guest', imports: 'electron', pkg: true },
  { name: 'web imports electron', in: 'src/web', imports: 'electron', pkg: true },
  // Renderer: shared and itself.
  { name: 'renderer imports node:fs', in: 'src/renderer/src', imports: 'node:fs', pkg: true },
  { name: 'renderer imports bare fs', in: 'src/renderer/src', imports: 'fs', pkg: true },
  { name: 'renderer imports electron', in: 'src/renderer/src', imports: 'electron', pkg: true },
  { name: 'renderer imports main/session', in: 'src/renderer/src', imports: 'src/main/session/index' },
  { name: 'renderer imports the preload', in: 'src/renderer/src', imports: 'src/preload/index' },
  { name: 'renderer imports a Node-only package (ws)', in: 'src/renderer/src', imports: 'ws', pkg: true },
  { name: 'renderer imports commander', in: 'src/renderer/src', imports: 'commander', pkg: true },
  // The app is an adapter too: main/session's index, the logger and shared.
  { name: 'app imports main/harness', in: 'src/main/app', imports: 'src/main/harness/turn-loop' },
  { name: 'app imports main/guest/docker-guest', in: 'src/main/app', imports: 'src/main/guest/docker-guest' },
  { name: 'app imports main/session/service (not the index)', in: 'src/main/app', imports: 'src/main/session/service' },
  // JavaScript files obey the same rules as TypeScript ones.
  { name: 'an .mjs file in harness imports dockerode', in: 'src/main/harness', imports: 'dockerode', pkg: true, ext: 'mjs' },
  { name: 'an .mjs file in cli imports main/store', in: 'src/cli', imports: 'src/main/store/session-store', ext: 'mjs' },
  { name: 'a .js file in the renderer imports ws', in: 'src/renderer/src', imports: 'ws', pkg: true, ext: 'js' },
  { name: 'a .cjs file in web requires electron', in: 'src/web', imports: 'electron', pkg: true, ext: 'cjs' },
  // Cycles: two files importing each other.
  { name: 'two tools files import each other (a cycle)', in: 'src/main/tools', imports: '', cycle: true },
  { name: 'two .mjs files in cli import each other (a cycle)', in: 'src/cli', imports: '', cycle: true, ext: 'mjs' },
  // Preload: electron and shared.
  { name: 'preload imports main/session', in: 'src/preload', imports: 'src/main/session/index' },
  // Shared: zod only.
  { name: 'shared imports main', in: 'src/shared', imports: 'src/main/session/index' },
  { name: 'shared imports node:path', in: 'src/shared', imports: 'node:path', pkg: true },
  { name: 'shared imports a package other than zod', in: 'src/shared', imports: 'ai', pkg: true },
  // Guest agent: Node built-ins and pure shared helpers.
  { name: 'guest-agent imports shared/contract (zod)', in: 'src/guest-agent', imports: 'src/shared/contract' },
  { name: 'guest-agent imports zod', in: 'src/guest-agent', imports: 'zod', pkg: true },
  { name: 'guest-agent imports main/tools', in: 'src/guest-agent', imports: 'src/main/tools/catalog' }
]

const allowed: Probe[] = [
  { name: 'cli imports main/session (its index)', in: 'src/cli', imports: 'src/main/session/index' },
  { name: 'cli imports shared/contract', in: 'src/cli', imports: 'src/shared/contract' },
  { name: 'cli imports web/web-host', in: 'src/cli', imports: 'src/web/web-host' },
  { name: 'web imports its static-file helpers', in: 'src/web', imports: 'src/web/static-files' },
  { name: 'ipc imports electron', in: 'src/main/ipc', imports: 'electron', pkg: true },
  { name: 'app imports electron', in: 'src/main/app', imports: 'electron', pkg: true },
  { name: 'preload imports electron', in: 'src/preload', imports: 'electron', pkg: true },
  { name: 'harness imports a guest type (import type)', in: 'src/main/harness', imports: 'src/main/guest/warm-pool', kind: 'type' },
  { name: 'harness imports the guest contract', in: 'src/main/harness', imports: 'src/main/guest/guest' },
  { name: 'harness imports tools and providers', in: 'src/main/harness', imports: 'src/main/providers/index' },
  { name: 'tools import a guest type (import type)', in: 'src/main/tools', imports: 'src/main/guest/docker-guest', kind: 'type' },
  { name: 'tools tests import test support', in: 'src/main/tools', imports: 'test/support/guest' },
  { name: 'session imports main/guest/docker-guest', in: 'src/main/session', imports: 'src/main/guest/docker-guest' },
  { name: 'renderer imports shared/contract', in: 'src/renderer/src', imports: 'src/shared/contract' },
  { name: 'renderer imports react', in: 'src/renderer/src', imports: 'react', pkg: true },
  { name: 'renderer imports react-dom/client', in: 'src/renderer/src', imports: 'react-dom/client', pkg: true },
  { name: 'renderer imports zustand', in: 'src/renderer/src', imports: 'zustand', pkg: true },
  { name: 'app imports main/session (its index)', in: 'src/main/app', imports: 'src/main/session/index' },
  { name: 'app imports the file logger', in: 'src/main/app', imports: 'src/main/log/file-logger' },
  { name: 'an .mjs file in cli imports main/session (its index)', in: 'src/cli', imports: 'src/main/session/index', ext: 'mjs' },
  { name: 'shared imports zod', in: 'src/shared', imports: 'zod', pkg: true },
  { name: 'guest-agent imports node:fs', in: 'src/guest-agent', imports: 'node:fs', pkg: true },
  { name: 'guest-agent imports shared/guest-protocol', in: 'src/guest-agent', imports: 'src/shared/guest-protocol' }
].map((p) => ({ ...p, allowed: true }) as Probe)

/** Real files whose platform imports are the allowed ones (no probe may take their names). */
const allowedRealFiles = ['src/main/guest/docker-guest.ts', 'src/main/index.ts', 'src/preload/index.ts']

/** A unique folder name per run, so concurrent runs and other tools never share a probe. */
const PROBE_DIR = `__lint-probe-${process.pid}-${randomBytes(4).toString('hex')}`

function specifier(p: Probe, file: string): string {
  if (p.pkg) return p.imports
  const from = dirname(file)
  const rel = (to: string): string => {
    const r = relative(from, join(ROOT, to))
    return r.startsWith('.') ? r : `./${r}`
  }
  if (!p.via) return rel(p.imports)
  return `${rel(p.via)}/${relative(join(ROOT, p.via), join(ROOT, p.imports))}`
}

function probeSource(p: Probe, file: string): string {
  const spec = p.cycle ? `./${partnerName(file).replace(/\.ts$/, '')}` : specifier(p, file)
  if (p.ext === 'cjs') return `const probe = require('${spec}')\nmodule.exports = { used: probe }\n`
  if (p.kind === 'type') return `import type * as probe from '${spec}'\nexport type Probe = typeof probe\n`
  return `import * as probe from '${spec}'\nexport const used = probe\n`
}

/** The partner file of a cycle probe `probe-3.ts`: `probe-3-back.ts`, which imports the probe. */
function partnerName(file: string): string {
  return file.replace(/^.*\/(probe-\d+)\.(\w+)$/, '$1-back.$2')
}

interface Outcome { importErrors: string[]; fatal: string[] }

/** Write every probe, lint them in one pass, and remove them whatever happens. */
async function lintProbes(probes: Probe[]): Promise<Map<Probe, Outcome>> {
  const dirs = new Set<string>()
  const files = new Map<Probe, string>()
  try {
    probes.forEach((p, i) => {
      const dir = join(ROOT, p.in, PROBE_DIR)
      mkdirSync(dir, { recursive: true })
      dirs.add(dir)
      const file = join(dir, `probe-${i}.${p.ext ?? 'ts'}`)
      writeFileSync(file, probeSource(p, file))
      const self = `./probe-${i}${p.ext && p.ext !== 'ts' ? `.${p.ext}` : ''}`
      if (p.cycle) writeFileSync(join(dir, partnerName(file)), `import { used } from '${self}'\nexport const back = used\n`)
      files.set(p, file)
    })
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfigFile: CONFIG,
      ruleFilter: ({ ruleId }) => IMPORT_RULES.has(ruleId)
    })
    const results = await eslint.lintFiles([...files.values()])
    const byFile = new Map(results.map((r) => [r.filePath, r]))
    return new Map(probes.map((p) => {
      const result = byFile.get(files.get(p) ?? '')
      const messages = result?.messages ?? []
      return [p, {
        importErrors: messages
          .filter((m) => m.severity === 2 && m.line === 1 && m.ruleId !== null && IMPORT_RULES.has(m.ruleId))
          .map((m) => `${m.ruleId}: ${m.message}`),
        fatal: result ? messages.filter((m) => m.fatal || m.ruleId === null).map((m) => m.message) : ['not linted']
      }]
    }))
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }
}

describe('import rules (eslint.config.mjs)', () => {
  let outcomes: Map<Probe, Outcome>

  // One lint pass for all probes: the type-aware parser's start-up dominates the cost.
  beforeAll(async () => {
    outcomes = await lintProbes([...forbidden, ...allowed])
  })

  afterAll(() => {
    for (const p of [...forbidden, ...allowed]) rmSync(join(ROOT, p.in, PROBE_DIR), { recursive: true, force: true })
  })

  it.each(forbidden.map((p) => [p.name, p] as const))('forbidden: %s', (_name, p) => {
    const o = outcomes.get(p)
    expect(o?.fatal).toEqual([])
    expect(o?.importErrors.length, `no import-rule error for: ${specifier(p, join(ROOT, p.in, PROBE_DIR, 'x.ts'))}`).toBeGreaterThan(0)
  })

  it.each(allowed.map((p) => [p.name, p] as const))('allowed: %s', (_name, p) => {
    const o = outcomes.get(p)
    expect(o?.fatal).toEqual([])
    expect(o?.importErrors).toEqual([])
  })

  it('the real owners of electron and dockerode lint clean of import-rule errors', async () => {
    const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: CONFIG, ruleFilter: ({ ruleId }) => IMPORT_RULES.has(ruleId) })
    const results = await eslint.lintFiles(allowedRealFiles.map((f) => join(ROOT, f)))
    const platform = /electron|dockerode/
    const errors = results.flatMap((r) => r.messages
      .filter((m) => m.ruleId !== null && IMPORT_RULES.has(m.ruleId) && platform.test(m.message))
      .map((m) => `${relative(ROOT, r.filePath)}:${m.line} ${m.message}`))
    expect(errors).toEqual([])
  })
})

describe('main/session/index.ts re-exports only its public surface', () => {
  const INDEX = join(ROOT, 'src/main/session/index.ts')
  /** Texts linted as if they were main/session/index.ts (the file on disk is never touched). */
  const leaks = [
    ['export * of a harness module', `export * from '../harness/turn-loop'\n`],
    ['a named re-export of a harness module', `export { runTurn } from '../harness/turn-loop'\n`],
    ['a named re-export of a guest internal', `export { WarmGuestPool } from '../guest/warm-pool'\n`],
    ['a re-export of an imported binding', `export { WarmGuestPool }\nimport { WarmGuestPool } from '../guest/warm-pool'\n`]
  ] as const

  async function importErrorsOf(text: string | null): Promise<string[]> {
    const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: CONFIG, ruleFilter: ({ ruleId }) => IMPORT_RULES.has(ruleId) })
    const [result] = text === null ? await eslint.lintFiles([INDEX]) : await eslint.lintText(text, { filePath: INDEX })
    return (result?.messages ?? []).filter((m) => m.severity === 2).map((m) => `${m.line}: ${m.ruleId ?? 'fatal'}: ${m.message}`)
  }

  it.each(leaks)('forbidden: %s', async (_name, text) => {
    const errors = await importErrorsOf(text)
    expect(errors.filter((e) => e.startsWith('1: no-restricted-syntax')), errors.join('\n')).not.toEqual([])
  })

  it('the real index lints clean', async () => {
    expect(await importErrorsOf(null)).toEqual([])
  })
})

describe('the layers are stated once and cover src/', () => {
  interface Layer { layer: string }
  interface ConfigModule { default: Array<{ rules?: Record<string, unknown> }>; layers?: Layer[]; zones?: unknown[] }
  let config: ConfigModule

  beforeAll(async () => {
    config = (await import(pathToFileURL(CONFIG).href)) as ConfigModule
  })

  it('each import rule is set by exactly one config block, so no later block can replace it', () => {
    for (const rule of IMPORT_RULES) {
      const setters = config.default.filter((block) => block.rules && rule in block.rules)
      expect(setters.length, rule).toBe(1)
    }
  })

  it('every source file under src/ belongs to a declared layer, and gets every zone', async () => {
    const layers = (config.layers ?? []).map((l) => l.layer)
    expect(layers.length).toBeGreaterThan(0)
    const files: string[] = []
    const walk = (dir: string): void => {
      for (const name of readdirSync(join(ROOT, dir))) {
        if (name.startsWith('__lint-probe-')) continue
        const path = `${dir}/${name}`
        if (statSync(join(ROOT, path)).isDirectory()) walk(path)
        else if (/\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/.test(name)) files.push(path)
      }
    }
    walk('src')
    const outside = files.filter((f) => !layers.some((l) => f === l || f.startsWith(`${l}/`)))
    expect(outside).toEqual([])
    // One file per layer: the merged config carries the complete zone list.
    const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: CONFIG })
    for (const layer of layers) {
      const sample = files.find((f) => f === layer || f.startsWith(`${layer}/`))
      if (!sample) continue
      const rules = ((await eslint.calculateConfigForFile(join(ROOT, sample))) as { rules: Record<string, unknown> }).rules
      const setting = rules['import-x/no-restricted-paths'] as [unknown, { zones: unknown[] }] | undefined
      expect(setting?.[1].zones, sample).toEqual(config.zones)
    }
  })
})
