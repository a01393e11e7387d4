/**
 * The user's MCP package cache: `<CORTEX_HOME>/mcp/packages`, a Node prefix (node_modules/…) that
 * every guest mounts read-only at MCP_PACKAGES_IN_GUEST. A stdio server configured as
 * `npx [-y] PKG ARGS…` whose package is in the cache starts offline as `node <its bin> ARGS…` in the
 * guest; one that is not fails with a message saying how to add it — unless the user allowed that
 * server network, when `npx` runs as written in its own networked guest. The cache is filled on the
 * host, never from inside a guest: with the host's npm (`--ignore-scripts`, so no package code runs
 * on the host) or, offline, by copying a package and its dependencies out of an existing node_modules.
 * Python launchers (`uvx PKG`, `uv tool run`, `pipx run`) have no cache: without network they fail
 * before starting, saying how to pre-fill a guest image instead.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix, relative, resolve, sep } from 'node:path'
import { CortexError } from '../../../shared/errors'
import { MCP_PACKAGES_IN_GUEST } from '../../guest/guest'
import type { McpStdioServerConfig } from './config-types'

/** The cache folder of a data folder. */
export function mcpPackagesDir(home: string): string {
  return join(home, 'mcp', 'packages')
}

/** `@scope/name@1.2` → `@scope/name`; `name@latest` → `name`. */
export function packageName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0)
  return at > 0 ? spec.slice(0, at) : spec
}

/** npx options that take no value and change nothing here. */
const NPX_FLAGS = new Set(['-y', '--yes', '-q', '--quiet', '--no-install', '--prefer-offline', '--offline'])

/**
 * The program to run in the guest for `cfg`: `npx PKG ARGS…` with PKG in the cache becomes
 * `node <cache in guest>/node_modules/PKG/<bin> ARGS…`; anything else runs as written.
 * @throws CortexError('invalid_input') for an npx server whose package is not in the cache and that has no network
 */
export function guestArgv(cfg: McpStdioServerConfig, home: string): string[] {
  const written = [cfg.command, ...cfg.args]
  const python = pythonLauncher(cfg)
  if (python && !cfg.network) throw pythonLauncherError(cfg.name, python)
  if (posix.basename(cfg.command) !== 'npx') return written
  let i = 0
  while (i < cfg.args.length && NPX_FLAGS.has(cfg.args[i]!)) i++
  const spec = cfg.args[i]
  // npx forms we do not rewrite (-p, --package=, -c): run as written
  if (spec === undefined || spec.startsWith('-')) return written
  const name = packageName(spec)
  const bin = cachedBin(home, name)
  if (bin) return ['node', `${MCP_PACKAGES_IN_GUEST}/node_modules/${name}/${bin}`, ...cfg.args.slice(i + 1)]
  if (cfg.network) return written
  throw new CortexError(
    'invalid_input',
    `MCP server "${cfg.name}" runs \`npx ${spec}\`, but ${name} is not in Cortex's MCP package cache (${mcpPackagesDir(home)}) and the server has no network. ` +
      `Add it on this machine with \`cortex mcp cache add ${name}\` (offline: \`cortex mcp cache add ${name} --from <a node_modules folder that has it>\`), or allow the server network ("network": true).`
  )
}

/**
 * For `uvx [--from P] PKG…`, `uv tool run …` and `pipx run …`: the launcher's words and the package
 * they download at start (best effort: `--from`'s value, else the first word not an option); else undefined.
 */
export function pythonLauncher(cfg: Pick<McpStdioServerConfig, 'command' | 'args'>): { launcher: string; pkg: string } | undefined {
  const cmd = posix.basename(cfg.command)
  const a = cfg.args
  const skip = cmd === 'uvx' ? 0 : cmd === 'uv' && a[0] === 'tool' && a[1] === 'run' ? 2 : cmd === 'pipx' && a[0] === 'run' ? 1 : -1
  if (skip < 0) return undefined
  const rest = a.slice(skip)
  const from = rest.indexOf('--from')
  const pkg = (from >= 0 ? rest[from + 1] : rest.find((w) => !w.startsWith('-'))) ?? '?'
  return { launcher: [cmd, ...a.slice(0, skip)].join(' '), pkg }
}

/**
 * Why a `uvx`-style server cannot start without network (a Python package cache is not built: guests
 * have no network, and the built-in guest image has neither uv nor pipx), and how to pre-fill it.
 */
function pythonLauncherError(server: string, p: { launcher: string; pkg: string }): CortexError {
  return new CortexError(
    'invalid_input',
    `MCP server "${server}" runs \`${p.launcher} ${p.pkg}\`, which downloads ${p.pkg} when it starts, but the guest has no network and Cortex has no Python package cache ` +
      `(only npx packages are cached: \`cortex mcp-cache add\`). Pre-fill it in a guest image of your own: a Dockerfile FROM the image \`cortex guest build\` prints that runs ` +
      `\`pip install ${p.pkg}\` (the image has python3 and pip), named by CORTEX_GUEST_IMAGE, then set the server's command to the program ${p.pkg} installs; ` +
      `or allow the server network ("network": true) with ${p.launcher.split(' ')[0]} in that image.`
  )
}

/** The bin path (relative, POSIX) of the cached package `name`, or undefined when it is not cached or has no bin. */
export function cachedBin(home: string, name: string): string | undefined {
  const file = join(mcpPackagesDir(home), 'node_modules', ...name.split('/'), 'package.json')
  if (!existsSync(file)) return undefined
  let pkg: { bin?: string | Record<string, string> }
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8')) as typeof pkg
  } catch {
    return undefined
  }
  const bins = typeof pkg.bin === 'string' ? { [name.split('/').pop()!]: pkg.bin } : (pkg.bin ?? {})
  const entries = Object.entries(bins)
  const chosen = bins[name.split('/').pop()!] ?? (entries.length === 1 ? entries[0]![1] : undefined)
  return chosen ? posix.normalize(chosen.replace(/\\/g, '/')).replace(/^\.\//, '') : undefined
}

/** Options of {@link addToPackageCache}. */
export interface CacheAddOptions {
  /** Copy from this node_modules folder (offline) instead of running npm. */
  from?: string
  /** With npm: never touch the network (only the host's npm cache). */
  offline?: boolean
  /** Where npm's output goes (default ignored). */
  onOutput?: (text: string) => void
}

/**
 * Add packages (npm specs) to the cache of `home`. With `from`, each package and its dependencies
 * (resolved like Node does, from the package's folder upward) are copied from that node_modules at
 * the same relative places; otherwise the host's npm installs them into the cache with
 * `--ignore-scripts`. Resolves with the names added.
 * @throws CortexError('invalid_input') when a package (or a dependency) is missing from `from`, or npm fails
 */
export async function addToPackageCache(home: string, specs: string[], opts: CacheAddOptions = {}): Promise<string[]> {
  const dir = mcpPackagesDir(home)
  mkdirSync(dir, { recursive: true, mode: 0o755 })
  if (opts.from) {
    const from = resolve(opts.from)
    for (const spec of specs) copyClosure(from, packageName(spec), join(dir, 'node_modules'))
    return specs.map(packageName)
  }
  const args = ['install', '--prefix', dir, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', ...(opts.offline ? ['--offline'] : []), ...specs]
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn('npm', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.on('data', (d: Buffer) => opts.onOutput?.(d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => opts.onOutput?.(d.toString('utf8')))
    child.on('error', fail)
    child.on('close', done)
  }).catch((err: unknown) => {
    throw new CortexError('invalid_input', `cannot run npm on this machine (${(err as Error).message}); use --from <node_modules folder> instead`)
  })
  if (code !== 0) throw new CortexError('invalid_input', `npm install into ${dir} failed (exit ${code}); see its output above${opts.offline ? ' (offline: the host npm cache lacks a package)' : ''}`)
  return specs.map(packageName)
}

/** Copy `name` and its dependency closure from the node_modules `from` into `to` (a node_modules). */
function copyClosure(from: string, name: string, to: string): void {
  const seen = new Set<string>()
  const visit = (pkgDir: string): void => {
    if (seen.has(pkgDir)) return
    seen.add(pkgDir)
    const rel = relative(from, pkgDir)
    // the package folder without its nested node_modules: the closure copies the ones needed
    cpSync(pkgDir, join(to, rel), { recursive: true, verbatimSymlinks: true, filter: (src) => !relative(pkgDir, src).split(sep).includes('node_modules') })
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }
    for (const dep of Object.keys({ ...manifest.dependencies })) {
      const found = resolveFrom(from, pkgDir, dep)
      if (!found) throw new CortexError('invalid_input', `${dep} (a dependency of ${relative(from, pkgDir)}) is not in ${from}`)
      visit(found)
    }
    for (const dep of Object.keys({ ...manifest.optionalDependencies })) {
      const found = resolveFrom(from, pkgDir, dep)
      if (found) visit(found)
    }
  }
  const top = join(from, ...name.split('/'))
  if (!existsSync(join(top, 'package.json'))) throw new CortexError('invalid_input', `${name} is not in ${from}`)
  visit(top)
}

/** Node's lookup of `dep` from `pkgDir`: its node_modules, then each parent's, up to `root`. */
function resolveFrom(root: string, pkgDir: string, dep: string): string | undefined {
  for (let d = pkgDir; ; d = dirname(d)) {
    const base = d === root ? d : join(d, 'node_modules')
    const candidate = join(base, ...dep.split('/'))
    if (existsSync(join(candidate, 'package.json'))) return candidate
    if (d === root || !d.startsWith(root)) return undefined
  }
}
