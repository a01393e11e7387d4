/**
 * The build context of Cortex's own image layer (resources/guest/Dockerfile): the toolchains that
 * come as files — Node's official binary (npm registry package node-linux-<arch>), npm and
 * corepack — packed on the host with `npm pack` (the registry and any proxy from the host's own npm
 * config; npm's cache makes a second build offline), checked against the pinned integrity, unpacked
 * into `rootfs/usr/local` with the bin links `npm i -g` would make. The Dockerfile only COPYs it.
 */
import { chmodSync, copyFileSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CortexError } from '../../../shared/errors'
import { toolchainPackages, type PinnedPackage } from './recipe'
import { runCommand } from './run-command'

/** How npm is started: through cmd.exe on Windows (npm.cmd cannot be spawned without a shell), else directly. */
const NPM = process.platform === 'win32' ? ['cmd.exe', '/d', '/s', '/c', 'npm'] : ['npm']

/** The bin links made under /usr/local/bin: name → target relative to /usr/local/bin. */
const BIN_LINKS: ReadonlyArray<[string, string]> = [
  ['npm', '../lib/node_modules/npm/bin/npm-cli.js'],
  ['npx', '../lib/node_modules/npm/bin/npx-cli.js'],
  ['corepack', '../lib/node_modules/corepack/dist/corepack.js'],
  // what `corepack enable` makes; the package managers themselves are fetched on first use (network)
  ['pnpm', '../lib/node_modules/corepack/dist/pnpm.js'],
  ['pnpx', '../lib/node_modules/corepack/dist/pnpx.js'],
  ['yarn', '../lib/node_modules/corepack/dist/yarn.js'],
  ['yarnpkg', '../lib/node_modules/corepack/dist/yarnpkg.js']
]

async function mustRun(argv: string[], what: string, onLine: (l: string) => void, signal?: AbortSignal, cwd?: string): Promise<string[]> {
  const lines: string[] = []
  let r
  try {
    r = await runCommand(argv, (l) => { lines.push(l); onLine(l) }, signal, cwd ? { cwd } : {})
  } catch (err) {
    throw new CortexError('image_unavailable', `${what} could not run: ${(err as Error).message}`, { cause: err })
  }
  if (r.code !== 0) throw new CortexError('image_unavailable', `${what} failed (exit ${r.code}): ${r.tail.slice(-4).join(' | ')}`)
  return lines
}

/** `npm pack` one pinned package into `dest`; returns the tarball path. */
async function pack(p: PinnedPackage, dest: string, onProgress: (l: string) => void, signal?: AbortSignal): Promise<string> {
  const spec = `${p.name}@${p.version}`
  onProgress(`==> npm pack ${spec} (from the npm registry of this machine's npm config, or npm's cache)`)
  const out = await mustRun([...NPM, 'pack', spec, '--json', '--pack-destination', dest, '--no-fund', '--no-audit'], `npm pack ${spec}`, () => undefined, signal)
  let meta: Array<{ filename: string; integrity: string }>
  try {
    meta = JSON.parse(out.join('\n').slice(out.join('\n').indexOf('['))) as typeof meta
  } catch {
    throw new CortexError('image_unavailable', `npm pack ${spec} printed no JSON: ${out.slice(-3).join(' | ')}`)
  }
  const m = meta[0]
  if (!m) throw new CortexError('image_unavailable', `npm pack ${spec} packed nothing`)
  if (m.integrity !== p.integrity) {
    throw new CortexError('image_unavailable', `npm pack ${spec}: integrity ${m.integrity} is not the pinned ${p.integrity} (resources/guest/toolchains.json)`)
  }
  return join(dest, m.filename)
}

/**
 * Fill `ctxDir` (an empty folder) with the build context of Cortex's layer for a Docker engine of
 * architecture `arch` (as `docker info` names it): `Dockerfile` and `rootfs/usr/local/{bin/node,
 * lib/node_modules/{npm,corepack}, bin links}`. Progress lines go to `onProgress` (`==>` steps).
 * `dockerfile` names the recipe file copied in as `Dockerfile` (default `Dockerfile`; a derived guest uses `Dockerfile.derive`).
 * @throws CortexError `image_unavailable` when npm or tar fail, an integrity differs, or toolchains.json lacks `arch`.
 */
export async function prepareLayerContext(recipeDir: string, ctxDir: string, arch: string, onProgress: (l: string) => void, signal?: AbortSignal, dockerfile = 'Dockerfile'): Promise<void> {
  let pins: PinnedPackage[]
  try {
    pins = toolchainPackages(recipeDir, arch)
  } catch (err) {
    throw new CortexError('image_unavailable', (err as Error).message, { cause: err })
  }
  const packs = join(ctxDir, '.packs')
  const local = join(ctxDir, 'rootfs', 'usr', 'local')
  const modules = join(local, 'lib', 'node_modules')
  for (const d of [packs, join(local, 'bin'), modules]) mkdirSync(d, { recursive: true })
  const [node, npm, corepack] = pins as [PinnedPackage, PinnedPackage, PinnedPackage]
  const unpack = async (p: PinnedPackage, into: string): Promise<void> => {
    const tgz = await pack(p, packs, onProgress, signal)
    mkdirSync(into, { recursive: true })
    await mustRun(['tar', '-xzf', tgz, '-C', into, '--strip-components=1', '--no-same-owner'], `unpacking ${p.name}`, () => undefined, signal)
  }
  await unpack(node, join(packs, 'node'))
  renameSync(join(packs, 'node', 'bin', 'node'), join(local, 'bin', 'node'))
  chmodSync(join(local, 'bin', 'node'), 0o755)
  await unpack(npm, join(modules, 'npm'))
  await unpack(corepack, join(modules, 'corepack'))
  for (const [name, target] of BIN_LINKS) {
    if (name === 'npm' || name === 'npx' || name === 'corepack') chmodSync(join(local, 'bin', target), 0o755)
    symlinkSync(target, join(local, 'bin', name))
  }
  for (const js of ['pnpm.js', 'pnpx.js', 'yarn.js', 'yarnpkg.js']) chmodSync(join(modules, 'corepack', 'dist', js), 0o755)
  copyFileSync(join(recipeDir, dockerfile), join(ctxDir, 'Dockerfile'))
  // the tarballs stay out of the context the builder is sent
  writeFileSync(join(ctxDir, '.dockerignore'), '.packs\n')
}
