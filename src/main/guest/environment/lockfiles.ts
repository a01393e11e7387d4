/**
 * The dependency lockfiles of a repository, hashed on the host: part of the setup cache's key
 * (docs/adr/0038), so a changed lockfile runs the setup step again. Read without following links
 * (a link is hashed as its target's name, never followed), regular files only.
 */
import { createHash } from 'node:crypto'
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, readlinkSync, lstatSync } from 'node:fs'
import { join } from 'node:path'

/** Lockfile names looked for in the repository's top folder. */
export const LOCKFILE_NAMES = [
  'package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb',
  'poetry.lock', 'uv.lock', 'Pipfile.lock', 'pdm.lock', 'Cargo.lock', 'go.sum', 'Gemfile.lock', 'composer.lock', 'mix.lock', 'flake.lock'
] as const
/** Lockfile name patterns (pip's requirements files). */
const LOCKFILE_PATTERNS = [/^requirements.*\.txt$/, /^constraints.*\.txt$/]

/** What {@link hashLockfiles} found: the sorted names and one sha256 hex over them all. */
export interface LockfilesHash {
  files: string[]
  hash: string
}

/**
 * Feed the bytes of the regular file at host `path` into `h`, opened without following a link
 * (O_NOFOLLOW) and without blocking on a FIFO; anything but a regular file adds `<not a regular file>`.
 * @throws Error from open/read (a link, a missing file)
 */
export function hashFile(path: string, h: ReturnType<typeof createHash>): void {
  // O_NONBLOCK: a FIFO the model put here must not block the host process (checked as not a regular file below)
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | constants.O_NONBLOCK | constants.O_NOCTTY)
  try {
    if (!fstatSync(fd).isFile()) {
      h.update('<not a regular file>')
      return
    }
    const buf = Buffer.alloc(1 << 16)
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(buf.subarray(0, n))
  } finally {
    closeSync(fd)
  }
}

/**
 * Hash the lockfiles in the top folder of `repo` (host path): each name, a NUL, its bytes (a link:
 * `<link>` and its target's name; unreadable: `<unreadable>`), a NUL, in name order. A repository
 * without lockfiles gets the hash of nothing.
 */
export function hashLockfiles(repo: string): LockfilesHash {
  let names: string[]
  try {
    names = readdirSync(repo)
  } catch {
    names = []
  }
  const files = names.filter((n) => (LOCKFILE_NAMES as readonly string[]).includes(n) || LOCKFILE_PATTERNS.some((p) => p.test(n))).sort()
  const h = createHash('sha256')
  for (const f of files) {
    const p = join(repo, f)
    h.update(f + '\0')
    try {
      if (lstatSync(p).isSymbolicLink()) h.update(`<link>${readlinkSync(p)}`)
      else hashFile(p, h)
    } catch {
      h.update('<unreadable>')
    }
    h.update('\0')
  }
  return { files, hash: h.digest('hex') }
}
