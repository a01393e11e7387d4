/**
 * Reading a repository's extension files (hooks, commands, skills, agents, MCP and environment
 * definitions) from the host without following a link anywhere on the way: the guest (the model)
 * can write the repository, and a `.claude -> ~/.claude` link or a `settings.json -> ~/.ssh/id_rsa`
 * link must not make Cortex read, show or run a host file as if it were the repository's.
 */
import { closeSync, constants, fstatSync, lstatSync, readdirSync, readSync } from 'node:fs'
import { join, sep } from 'node:path'
import { CortexError } from '../../shared/errors'
import { openNoFollow, READ_NOFOLLOW } from '../store/no-follow'

/** Largest repository extension file read (bytes): 1 MiB. */
export const MAX_REPO_FILE_BYTES = 1024 * 1024

/**
 * Check each component of `rel` below `repo` with lstat.
 * @returns 'absent' when a component is missing, 'ok' when every folder on the way is a real folder
 * @throws CortexError('invalid_input') when one is a link or not a folder
 */
function walk(repo: string, parts: readonly string[]): 'absent' | 'ok' {
  let at = repo
  for (const part of parts) {
    at = join(at, part)
    let st
    try {
      st = lstatSync(at)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return 'absent'
      throw err
    }
    if (st.isSymbolicLink()) throw new CortexError('invalid_input', `${at} is a symbolic link; Cortex does not follow links in repository extension files`)
    if (!st.isDirectory()) throw new CortexError('invalid_input', `${at} is not a folder`)
  }
  return 'ok'
}

/** Split a repository-relative path; refuses absolute paths and `..`. */
function parts(rel: string): string[] {
  const p = rel.split(/[\\/]+/).filter((s) => s !== '' && s !== '.')
  if (rel.startsWith('/') || p.includes('..') || p.length === 0) throw new CortexError('invalid_input', `not a repository-relative path: ${rel}`)
  return p
}

/**
 * Read `rel` (posix, relative to `repo`) without following a link in any component.
 * @param repo the repository's absolute host path (itself trusted: the user chose it)
 * @returns the bytes, or null when the file (or a folder on the way) does not exist
 * @throws CortexError('invalid_input') when a component is a link, the file is not a regular file,
 *   or it is over {@link MAX_REPO_FILE_BYTES}
 */
export function readRepoFile(repo: string, rel: string): Buffer | null {
  const p = parts(rel)
  if (walk(repo, p.slice(0, -1)) === 'absent') return null
  const path = join(repo, ...p)
  let fd: number
  try {
    // O_NONBLOCK: a FIFO the model put at this path must not block the host process (the regular-file check follows)
    fd = openNoFollow(path, READ_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    if (err instanceof CortexError) throw new CortexError('invalid_input', `${path} is a symbolic link; Cortex does not follow links in repository extension files`)
    throw err
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw new CortexError('invalid_input', `${path} is not a regular file`)
    if (st.size > MAX_REPO_FILE_BYTES) throw new CortexError('invalid_input', `${path} is ${st.size} bytes; repository extension files may be at most ${MAX_REPO_FILE_BYTES} bytes`)
    const buf = Buffer.alloc(st.size)
    let off = 0
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off)
      if (n === 0) break
      off += n
    }
    return buf.subarray(0, off)
  } finally {
    closeSync(fd)
  }
}

/**
 * The entries of folder `rel` of the repository (names only, sorted), without following a link on
 * the way; entries that are links are left out (they are never read).
 * @returns [] when the folder does not exist
 * @throws CortexError('invalid_input') when a component is a link or not a folder
 */
export function listRepoDir(repo: string, rel: string): Array<{ name: string; dir: boolean }> {
  if (walk(repo, parts(rel)) === 'absent') return []
  const out: Array<{ name: string; dir: boolean }> = []
  for (const e of readdirSync(join(repo, ...parts(rel)), { withFileTypes: true })) {
    if (e.isSymbolicLink() || e.name.includes(sep)) continue
    if (e.isFile() || e.isDirectory()) out.push({ name: e.name, dir: e.isDirectory() })
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
