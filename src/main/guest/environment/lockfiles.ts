/**
 * The dependency lockfiles of a repository, hashed on the host: part of the setup cache's key
 * (docs/adr/0038), so a changed lockfile runs the setup step again. Read without following links
 * (a link is hashed as its target's name, never followed), regular files only. Bounded: a
 * `truncate -s 1T package-lock.json` in the guest costs no disk, so past {@link MAX_HASHED_FILE_BYTES}
 * per file (or {@link MAX_HASHED_TOTAL_BYTES} in all) a file's size and modification time stand for
 * its bytes; the reads are asynchronous, in chunks, and end on the caller's AbortSignal.
 */
import { createHash } from 'node:crypto'
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs'
import { lstat, open, readdir, readlink } from 'node:fs/promises'
import { join } from 'node:path'

/** Lockfile names looked for in the repository's top folder. */
export const LOCKFILE_NAMES = [
  'package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb',
  'poetry.lock', 'uv.lock', 'Pipfile.lock', 'pdm.lock', 'Cargo.lock', 'go.sum', 'Gemfile.lock', 'composer.lock', 'mix.lock', 'flake.lock'
] as const
/** Lockfile name patterns (pip's requirements files). */
const LOCKFILE_PATTERNS = [/^requirements.*\.txt$/, /^constraints.*\.txt$/]

/** Most bytes of one file hashed: a bigger file is keyed by its size and modification time (a generous bound: real lockfiles are a few MiB). */
export const MAX_HASHED_FILE_BYTES = 64 * 2 ** 20
/** Most bytes hashed over all lockfiles of one repository: the rest are keyed by size and time. */
export const MAX_HASHED_TOTAL_BYTES = 256 * 2 ** 20
/** Most lockfiles looked at (name order): `requirements*.txt` is a pattern, so their number is the repository's to choose. */
export const MAX_LOCKFILES = 64
/** Bytes read at a time (between two reads the signal is checked and the event loop runs). */
const CHUNK = 1 << 20

/**
 * What {@link hashLockfiles} found: the sorted names and one sha256 hex over them all. A file keyed
 * by size and time instead of bytes is named with the reason, e.g. `package-lock.json (over 64 MiB:
 * its size and time stand for its bytes)`, which the setup step's note shows.
 */
export interface LockfilesHash {
  files: string[]
  hash: string
}

/** The key of a file too big to read: its size and modification time (ms). */
function sizeKey(st: Stats): string {
  return `<large:${st.size}:${st.mtimeMs}>`
}

/** Open flags: no link followed, no FIFO blocking the host (checked as not a regular file after). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | constants.O_NONBLOCK | constants.O_NOCTTY

/**
 * Feed the bytes of the regular file at host `path` into `h`, opened without following a link
 * (O_NOFOLLOW) and without blocking on a FIFO; anything but a regular file adds `<not a regular file>`,
 * a file over {@link MAX_HASHED_FILE_BYTES} its size and time (a sparse terabyte is never read).
 * @throws Error from open/read (a link, a missing file)
 */
export function hashFile(path: string, h: ReturnType<typeof createHash>): void {
  const fd = openSync(path, OPEN_FLAGS)
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) {
      h.update('<not a regular file>')
      return
    }
    if (st.size > MAX_HASHED_FILE_BYTES) {
      h.update(sizeKey(st))
      return
    }
    const buf = Buffer.alloc(1 << 16)
    let left = MAX_HASHED_FILE_BYTES
    for (let n; left > 0 && (n = readSync(fd, buf, 0, Math.min(buf.length, left), null)) > 0; left -= n) h.update(buf.subarray(0, n))
  } finally {
    closeSync(fd)
  }
}

/** {@link hashFile} asynchronously in chunks within `budget` bytes; resolves with the bytes read, or -1 when keyed by size and time. */
async function hashFileAsync(path: string, h: ReturnType<typeof createHash>, budget: number, signal?: AbortSignal): Promise<number> {
  const fh = await open(path, OPEN_FLAGS)
  try {
    const st = await fh.stat()
    if (!st.isFile()) {
      h.update('<not a regular file>')
      return 0
    }
    if (st.size > Math.min(MAX_HASHED_FILE_BYTES, budget)) {
      h.update(sizeKey(st))
      return -1
    }
    const buf = Buffer.alloc(CHUNK)
    let read = 0
    // a file that grows while read stops at its size when opened
    while (read < st.size) {
      signal?.throwIfAborted()
      const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, st.size - read), null)
      if (bytesRead === 0) break
      h.update(buf.subarray(0, bytesRead))
      read += bytesRead
    }
    return read
  } finally {
    await fh.close()
  }
}

/**
 * Hash the lockfiles in the top folder of `repo` (host path): each name, a NUL, its bytes (a link:
 * `<link>` and its target's name; unreadable: `<unreadable>`; over the bounds: its size and time),
 * a NUL, in name order, at most {@link MAX_LOCKFILES}. A repository without lockfiles gets the hash
 * of nothing.
 * @throws AbortError (DOMException) when `signal` aborts: between two chunks, so within milliseconds
 */
export async function hashLockfiles(repo: string, signal?: AbortSignal): Promise<LockfilesHash> {
  let names: string[]
  try {
    names = await readdir(repo)
  } catch {
    names = []
  }
  const all = names.filter((n) => (LOCKFILE_NAMES as readonly string[]).includes(n) || LOCKFILE_PATTERNS.some((p) => p.test(n))).sort()
  const h = createHash('sha256')
  const files: string[] = []
  let budget = MAX_HASHED_TOTAL_BYTES
  for (const f of all.slice(0, MAX_LOCKFILES)) {
    signal?.throwIfAborted()
    const p = join(repo, f)
    h.update(f + '\0')
    let shown = f
    try {
      if ((await lstat(p)).isSymbolicLink()) h.update(`<link>${await readlink(p)}`)
      else {
        const n = await hashFileAsync(p, h, budget, signal)
        if (n < 0) shown = `${f} (over ${budget < MAX_HASHED_FILE_BYTES ? `the ${MAX_HASHED_TOTAL_BYTES / 2 ** 20} MiB all lockfiles may take` : `${MAX_HASHED_FILE_BYTES / 2 ** 20} MiB`}: its size and time stand for its bytes)`
        else budget -= n
      }
    } catch (err) {
      if (signal?.aborted) throw err
      h.update('<unreadable>')
    }
    h.update('\0')
    files.push(shown)
  }
  if (all.length > MAX_LOCKFILES) {
    h.update(`<more:${all.length - MAX_LOCKFILES}>`)
    files.push(`and ${all.length - MAX_LOCKFILES} more (not read: at most ${MAX_LOCKFILES} lockfiles count)`)
  }
  return { files, hash: h.digest('hex') }
}
