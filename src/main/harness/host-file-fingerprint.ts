/**
 * Fingerprints of host files for the turn-end checks (./host-exec-watch.ts, ./git-arming.ts): read
 * without following a link, blocking on a FIFO or opening anything but a regular file; a small file
 * by its content hash (a package.json by its scripts only), a large one by size and mtime.
 */
import { createHash } from 'node:crypto'
import { constants, promises as fsp, type Stats } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'

/** Regular files up to this size are hashed; larger ones compare by size and mtime (bytes). */
const HASH_LIMIT_BYTES = 1024 * 1024

/** lstat of `p`, or null when it is absent or unreadable (then it is not part of a snapshot). */
export async function lstat(p: string): Promise<Stats | null> {
  return fsp.lstat(p).catch(() => null) // absent or unreadable: not part of the snapshot
}

/**
 * Read a regular file of at most {@link HASH_LIMIT_BYTES} without blocking or following a link: the
 * guest may swap the name for a FIFO or a link between the lstat and the open (a process the model
 * left running), so the open is non-blocking with O_NOFOLLOW and the handle's own fstat decides.
 * @returns the bytes, or a fingerprint for what the name is by now (special, too large, unreadable)
 */
export async function readSmallRegular(abs: string, mode: string, st: Stats): Promise<Buffer | string> {
  let fh: FileHandle
  try {
    fh = await fsp.open(abs, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
  } catch {
    return `file:${mode}:${st.size}:${st.mtimeMs}` // unreadable, or swapped for a link: size and mtime still show a change
  }
  try {
    const now = await fh.stat()
    if (!now.isFile()) return `special:${now.mode.toString(8)}`
    if (now.size > HASH_LIMIT_BYTES) return `file:${(now.mode & 0o7777).toString(8)}:${now.size}:${now.mtimeMs}`
    const buf = Buffer.alloc(Math.min(now.size, HASH_LIMIT_BYTES) + 1) // one byte more shows growth
    let got = 0
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got)
      if (bytesRead === 0) break
      got += bytesRead
    }
    if (got > HASH_LIMIT_BYTES) return `file:${mode}:${got}+:${now.mtimeMs}` // grew while read
    return buf.subarray(0, got)
  } catch {
    return `file:${mode}:${st.size}:${st.mtimeMs}` // a failed read: size and mtime still show a change
  } finally {
    await fh.close().catch(() => undefined) // read-only handle: a failed close loses nothing
  }
}

/**
 * A fingerprint of `abs` (lstat `st`, repository-relative `rel`) that never opens anything but a
 * regular file and never follows a link: `link:<target>`, `dir`, `special:<mode>`, or a content hash.
 */
export async function fingerprint(abs: string, st: Stats, rel: string): Promise<string> {
  if (st.isSymbolicLink()) return `link:${await fsp.readlink(abs).catch(() => '?')}` // unreadable target: the link still counts
  if (st.isDirectory()) return 'dir'
  if (!st.isFile()) return `special:${st.mode.toString(8)}`
  const mode = (st.mode & 0o7777).toString(8)
  if (st.size > HASH_LIMIT_BYTES) return `file:${mode}:${st.size}:${st.mtimeMs}`
  const bytes = await readSmallRegular(abs, mode, st)
  if (typeof bytes === 'string') return bytes
  if (rel === 'package.json' || rel.endsWith('/package.json')) {
    // only what runs: scripts (and the package manager's lifecycle settings)
    try {
      const pkg = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>
      return `scripts:${createHash('sha256').update(JSON.stringify([pkg.scripts ?? null, pkg.packageManager ?? null])).digest('hex')}`
    } catch {
      // not JSON: the whole file's hash still shows a change
      return `unparsed:${createHash('sha256').update(bytes).digest('hex')}`
    }
  }
  return `file:${mode}:${createHash('sha256').update(bytes).digest('hex')}`
}
