/**
 * The guest image recipe in resources/guest/: which files it has, the package list both builders
 * install, the toolchains that come as files, and the tags derived from it (the image tag over all
 * recipe files, a base tag per builder over the files that base depends on).
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** Recipe files whose bytes determine the image tag, relative to the recipe folder. */
export const GUEST_RECIPE_FILES = ['build-image.sh', 'packages.txt', 'Dockerfile.base', 'Dockerfile', 'toolchains.json'] as const
/** Image repository name of the default guest; the tag is the recipe hash. */
export const GUEST_IMAGE_REPO = 'cortex-guest'
/** Image repository name of the builders' bases (packages only, no Cortex layer). */
export const GUEST_BASE_REPO = 'cortex-guest-base'

/** The two ways to make the base: debootstrap from the host's apt sources, or Dockerfile.base on the pinned slim image. */
export type BuilderKind = 'debootstrap' | 'dockerfile'

/**
 * First 12 hex of sha256 over `files` of `recipeDir`: each file's name, a NUL, its bytes (or the
 * marker `<absent>` for a missing file) and a NUL, in the given order.
 */
export function recipeHash(recipeDir: string, files: readonly string[]): string {
  const h = createHash('sha256')
  for (const f of files) {
    const p = join(recipeDir, f)
    h.update(f + '\0')
    h.update(existsSync(p) ? readFileSync(p) : '<absent>')
    h.update('\0')
  }
  return h.digest('hex').slice(0, 12)
}

/**
 * Tag of a builder's base image: `cortex-guest-base:<hash>-<kind>`, the hash over packages.txt and
 * that builder's own file (build-image.sh or Dockerfile.base), so changing Cortex's layer
 * (Dockerfile, toolchains.json) reuses the base.
 */
export function baseImageTag(recipeDir: string, kind: BuilderKind): string {
  const own = kind === 'debootstrap' ? 'build-image.sh' : 'Dockerfile.base'
  return `${GUEST_BASE_REPO}:${recipeHash(recipeDir, ['packages.txt', own])}-${kind}`
}

/**
 * The Debian packages of packages.txt (comments dropped, any whitespace separating names).
 * @throws Error when packages.txt cannot be read.
 */
export function recipePackages(recipeDir: string): string[] {
  return readFileSync(join(recipeDir, 'packages.txt'), 'utf8')
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join(' ')
    .split(/\s+/)
    .filter(Boolean)
}

/** One pinned npm registry package: exact version and the registry's sha512 integrity string. */
export interface PinnedPackage {
  name: string
  version: string
  integrity: string
}

/** toolchains.json as read: Node per architecture (`x64`, `arm64`), npm and corepack. */
export interface Toolchains {
  node: { version: string; packages: Record<string, { name: string; integrity: string }> }
  npm: { version: string; integrity: string }
  corepack: { version: string; integrity: string }
}

/**
 * The pinned packages for Docker architecture `arch` (`x86_64`/`amd64` or `aarch64`/`arm64`):
 * node-linux-<arch>, npm, corepack.
 * @throws Error when toolchains.json is missing or unreadable, or has no Node for `arch`.
 */
export function toolchainPackages(recipeDir: string, arch: string): PinnedPackage[] {
  const t = JSON.parse(readFileSync(join(recipeDir, 'toolchains.json'), 'utf8')) as Toolchains
  const key = /^(x86_64|amd64|x64)$/.test(arch) ? 'x64' : /^(aarch64|arm64)$/.test(arch) ? 'arm64' : arch
  const node = t.node.packages[key]
  if (!node) throw new Error(`toolchains.json has no Node for the Docker engine's architecture '${arch}' (has: ${Object.keys(t.node.packages).join(', ')})`)
  return [
    { name: node.name, version: t.node.version, integrity: node.integrity },
    { name: 'npm', ...t.npm },
    { name: 'corepack', ...t.corepack }
  ]
}
