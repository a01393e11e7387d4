/**
 * A repository's environment definition read on the host (readRepoFile: no link followed, 1 MiB
 * at most): the devcontainer.json, the Dockerfile it builds, their trust hash, and what the trust
 * card shows; and the resolver the guest provider asks at each start, which hands over the
 * environment only while the user trusts exactly this content (docs/adr/0038).
 */
import { CortexError } from '../../../shared/errors'
import { DEVCONTAINER_FILES, parseDevcontainer, type EnvironmentDefinition } from '../../guest/environment/devcontainer'
import { hashLockfiles } from '../../guest/environment/lockfiles'
import type { ProjectEnvironment } from '../../guest/environment/project-image'
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
  /** The Dockerfile's text, when the definition builds one. */
  /** The Dockerfile it builds: its repository-relative path, its bytes as read (and hashed), and them as text for the card. */
  dockerfile?: { path: string; bytes: Buffer; text: string }
}

/**
 * Read `repo`'s devcontainer.json ({@link DEVCONTAINER_FILES}, first found) and the Dockerfile it
 * names; undefined when there is none. The hash covers the file's path and bytes and the
 * Dockerfile's path and bytes (the setup commands are in the former).
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
    if (def.base.kind !== 'build') return { file, hash: trustHash(file, bytes), def }
    const path = def.base.dockerfile
    let df: Buffer | null
    try {
      df = readRepoFile(repo, path)
    } catch (err) {
      return { file, hash: trustHash(file, bytes, path), error: (err as Error).message }
    }
    if (!df) return { file, hash: trustHash(file, bytes, path), error: `${file} builds ${path}, which does not exist` }
    return { file, hash: trustHash(file, bytes, path, df), def, dockerfile: { path, bytes: df, text: df.toString('utf8') } }
  }
  return undefined
}

/** What the trust card shows: the image or the Dockerfile, the setup commands and whether they ask for a network, the notes. */
export function environmentCardDetail(f: EnvironmentFiles): string {
  if (!f.def) return `${f.file} cannot be used: ${f.error ?? 'unknown error'}`
  const d = f.def
  const lines = [d.base.kind === 'image' ? `Guest image: ${d.base.image}` : `Guest image built from ${d.base.dockerfile} (context ${d.base.context || '.'}${d.base.target ? `, target ${d.base.target}` : ''}):\n${f.dockerfile?.text ?? ''}`]
  lines.push(d.setup.length ? `Setup step, run once in the guest (${d.setupNetwork ? 'WITH network, as the file asks' : 'no network'}), then cached:\n${d.setup.map((c) => `  ${c.label}: ${c.argv.join(' ')}`).join('\n')}` : 'No setup commands.')
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
