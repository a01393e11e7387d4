/**
 * A repository's environment definition read on the host (readRepoFile: no link followed, 1 MiB
 * at most): the devcontainer.json, the Dockerfile it builds, their trust hash, and what the trust
 * card shows; and the resolver the guest provider asks at each start, which hands over the
 * environment only while the user trusts exactly this content (docs/adr/0038). Network is granted
 * to the content the user saw: the hash always covers the repository files the setup commands
 * name; when the setup asks for a network it also covers every file beside them, the package
 * manifests and lockfiles the setup reads, and the files the Dockerfile COPYs (built with network).
 */
import { createHash, randomBytes } from 'node:crypto'
import { lstatSync, readdirSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { CortexError } from '../../../shared/errors'
import { DEVCONTAINER_FILES, parseDevcontainer, type EnvironmentDefinition } from '../../guest/environment/devcontainer'
import { copiedFilesHash } from '../../guest/environment/context-hash'
import { hashFile, hashLockfiles, LOCKFILE_NAMES } from '../../guest/environment/lockfiles'
import type { ProjectEnvironment } from '../../guest/environment/project-image'
import { hashRepoFiles, runRepoFiles, type HashedRepoFiles } from '../named-files'
import { readRepoFile } from '../repo-file'
import { trustHash, type TrustStore } from '../trust-store'

/** The trust store key of a repository's environment. */
export const ENVIRONMENT_TRUST_KEY = 'environment'

/** What the repository defines: the file, its trust hash, and the parsed definition or why it cannot be used. */
export interface EnvironmentFiles {
  file: string
  hash: string
  def?: EnvironmentDefinition
  /** The parse or read error, when the definition cannot be used. */
  error?: string
  /** The Dockerfile it builds: its repository-relative path, its bytes as read (and hashed), and them as text for the card. */
  dockerfile?: { path: string; bytes: Buffer; text: string }
  /** The repository files the hash binds besides the definition and its Dockerfile (shown on the card). */
  bound?: BoundFiles
}

/** What the trust hash binds besides devcontainer.json and the Dockerfile. */
export interface BoundFiles {
  /** The files the setup commands name (with every file beside them when the setup has network). */
  setupFiles: HashedRepoFiles
  /** With network: the manifests and lockfiles hashed (top folder), and whether the Dockerfile's COPY'd files count. */
  network?: { manifests: string[]; copied: boolean; locksOverCap?: boolean }
}

/** Package manifests and package-manager settings a setup with network reads (top folder), besides the lockfiles of lockfiles.ts. */
export const SETUP_MANIFESTS = [
  'package.json', '.npmrc', '.yarnrc', '.yarnrc.yml', 'pnpm-workspace.yaml', 'bunfig.toml', 'pyproject.toml', 'setup.py', 'setup.cfg', 'Pipfile',
  'pip.conf', 'Cargo.toml', 'go.mod', 'Gemfile', 'composer.json', 'mix.exs', 'flake.nix', 'Makefile'
] as const

/** The hash parts binding what the setup (and, with network, the build) reads besides the definition; and what they are. */
function setupBinding(repo: string, def: EnvironmentDefinition, dockerfile: { path: string; text: string } | undefined): { parts: string[]; bound: BoundFiles } {
  const named = new Set(def.setup.flatMap((c) => (c.argv.length === 3 && /^(?:\/bin\/)?(?:ba)?sh$/.test(c.argv[0] as string) && c.argv[1] === '-c' ? runRepoFiles(c.argv[2] as string, repo) : runRepoFiles(c.argv.map((a) => JSON.stringify(a)).join(' '), repo))))
  const setupFiles = hashRepoFiles(repo, named, def.setupNetwork ? { extra: [] } : undefined)
  // over the cap nothing can bind consent: a hash never the same twice, so never enabled
  const parts = [JSON.stringify(setupFiles.files), setupFiles.overCap ? randomBytes(32).toString('hex') : '']
  if (!def.setupNetwork) return { parts, bound: { setupFiles } }
  const manifests = SETUP_MANIFESTS.filter((m) => readRepoFileState(repo, m) !== 'missing')
  const locks = lockfilesState(repo)
  parts.push(JSON.stringify(manifests.map((m) => [m, readRepoFileState(repo, m)])), locks ?? randomBytes(32).toString('hex'))
  const copied = def.base.kind === 'build' && dockerfile !== undefined
  if (copied && def.base.kind === 'build') parts.push(copiedFilesHash(repo, def.base.context, dockerfile.path, dockerfile.text, def.base.args))
  return { parts, bound: { setupFiles, network: { manifests, copied, ...(locks === undefined ? { locksOverCap: true } : {}) } } }
}

/** Most bytes of lockfiles bound to a setup with network (one file 16 MiB, all 64 MiB): over it the environment cannot be enabled. */
const MAX_BOUND_LOCKFILE_BYTES = 16 * 2 ** 20
const MAX_BOUND_LOCKFILES_BYTES = 64 * 2 ** 20

/**
 * The top folder's lockfiles (lockfiles.ts names, requirements/constraints*.txt) as one hash part:
 * each name with its bytes (a link: its target's name), sizes checked before reading (a sparse file
 * never read); undefined over the caps. Synchronous and bounded, as the trust card is.
 */
function lockfilesState(repo: string): string | undefined {
  const h = createHash('sha256')
  let total = 0
  let names: string[]
  try {
    names = readdirSync(repo).filter((n) => (LOCKFILE_NAMES as readonly string[]).includes(n) || /^(requirements|constraints).*\.txt$/.test(n)).sort()
  } catch {
    names = []
  }
  for (const n of names) {
    const p = join(repo, n)
    h.update(`${n}\0`)
    try {
      const st = lstatSync(p)
      if (st.isSymbolicLink()) h.update(`<link>${readlinkSync(p)}`)
      else if (!st.isFile()) h.update('<special>')
      else {
        total += st.size
        if (st.size > MAX_BOUND_LOCKFILE_BYTES || total > MAX_BOUND_LOCKFILES_BYTES) return undefined
        hashFile(p, h)
      }
    } catch {
      h.update('<unreadable>')
    }
    h.update('\0')
  }
  return h.digest('hex')
}

/** A repository file's content as a hash part: `missing`, its sha256, or why it cannot be read. */
function readRepoFileState(repo: string, rel: string): string {
  try {
    const b = readRepoFile(repo, rel)
    return b === null ? 'missing' : trustHash(b)
  } catch (err) {
    return `unreadable: ${(err as Error).message}`
  }
}

/**
 * Read `repo`'s devcontainer.json ({@link DEVCONTAINER_FILES}, first found) and the Dockerfile it
 * names; undefined when there is none. The hash covers the file's path and bytes, the
 * Dockerfile's path and bytes, and {@link setupBinding}'s files (see the module comment).
 * @throws CortexError('invalid_input') when the devcontainer.json itself is a link, not a regular file, or over 1 MiB
 */
export function readEnvironmentFiles(repo: string): EnvironmentFiles | undefined {
  for (const file of DEVCONTAINER_FILES) {
    const bytes = readRepoFile(repo, file)
    if (!bytes) continue
    const text = bytes.toString('utf8')
    let def: EnvironmentDefinition
    try {
      def = parseDevcontainer(text, file, repo)
    } catch (err) {
      return { file, hash: trustHash(file, bytes), error: (err as Error).message }
    }
    if (def.base.kind !== 'build') {
      const b = setupBinding(repo, def, undefined)
      return { file, hash: trustHash(file, bytes, ...b.parts), def, bound: b.bound }
    }
    const path = def.base.dockerfile
    let df: Buffer | null
    try {
      df = readRepoFile(repo, path)
    } catch (err) {
      return { file, hash: trustHash(file, bytes, path), error: (err as Error).message }
    }
    if (!df) return { file, hash: trustHash(file, bytes, path), error: `${file} builds ${path}, which does not exist` }
    const dockerfile = { path, bytes: df, text: df.toString('utf8') }
    const b = setupBinding(repo, def, dockerfile)
    return { file, hash: trustHash(file, bytes, path, df, ...b.parts), def, dockerfile, bound: b.bound }
  }
  return undefined
}

/** What the trust card shows: the image or the Dockerfile, the setup commands and whether they ask for a network, the notes. */
export function environmentCardDetail(f: EnvironmentFiles): string {
  if (!f.def) return `${f.file} cannot be used: ${f.error ?? 'unknown error'}`
  const d = f.def
  const lines = [d.base.kind === 'image' ? `Guest image: ${d.base.image}` : `Guest image built from ${d.base.dockerfile} (context ${d.base.context || '.'}${d.base.target ? `, target ${d.base.target}` : ''}):\n${f.dockerfile?.text ?? ''}`]
  lines.push(d.setup.length ? `Setup step, run once in the guest (${d.setupNetwork ? 'WITH network, as the file asks' : 'no network'}), then cached:\n${d.setup.map((c) => `  ${c.label}: ${c.argv.join(' ')}`).join('\n')}` : 'No setup commands.')
  const b = f.bound
  if (b?.setupFiles.files.length) lines.push(`Files the setup runs (a change asks you again):\n${b.setupFiles.files.map((x) => `  ${x.file} (${x.state.startsWith('sha256:') ? x.state.slice(0, 19) : x.state})`).join('\n')}`)
  if (b?.setupFiles.overCap) lines.push(`This environment cannot be enabled: the files beside its setup scripts are too many to bind your consent to (${b.setupFiles.overCap}); move the scripts into a small folder of their own`)
  if (b?.network?.locksOverCap) lines.push('This environment cannot be enabled with a network: its lockfiles are over 16 MiB each or 64 MiB in all, too much to bind your consent to')
  if (b?.network) lines.push(`With network, also bound: the lockfiles${b.network.manifests.length ? `, ${b.network.manifests.join(', ')}` : ''}${b.network.copied ? ', the files the Dockerfile copies' : ''}: a change asks you again`)
  if (Object.keys(d.env).length) lines.push(`Environment: ${Object.keys(d.env).join(', ')}`)
  for (const n of d.notes) lines.push(n)
  return lines.join('\n')
}

/**
 * The guest provider's resolver: `repo`'s environment when the user trusts exactly its current
 * content, else undefined (the default guest runs). Read afresh at each start, so a change
 * disables it at once.
 * @throws CortexError('invalid_input') when a trusted definition cannot be used (the start notes it and uses the default image)
 */
export function environmentResolver(trust: TrustStore): (repo: string) => Promise<ProjectEnvironment | undefined> {
  return async (repo) => {
    const f = readEnvironmentFiles(repo)
    if (!f || !trust.isTrusted(repo, ENVIRONMENT_TRUST_KEY, f.hash)) return undefined
    if (!f.def) throw new CortexError('invalid_input', f.error ?? `${f.file} cannot be used`)
    const locks = await hashLockfiles(repo)
    // the Dockerfile's bytes that were link-checked and hashed are what gets built (fed on stdin): never its path, read again
    return { repo, def: f.def, hash: f.hash, lockHash: locks.hash, lockfiles: locks.files, ...(f.dockerfile && { dockerfile: f.dockerfile.bytes }) }
  }
}
