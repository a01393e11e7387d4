/**
 * Reading, on the host, what the guest may have written near the repository's git control files
 * (`.gitmodules`, `.git` pointers, `commondir`, `.git/modules`) without blocking or following a
 * link (./git-protect.ts; docs/adr/0006-guest-cannot-arm-the-host.md).
 */
import { closeSync, constants, fstatSync, openSync, readSync, readdirSync, realpathSync } from 'node:fs'

/** Longest control file read on the host (bytes); `.gitmodules` of a large monorepo stays far below. */
const MAX_CONTROL_FILE_BYTES = 4 * 1024 * 1024

/**
 * Read a file the guest may have made, on the host, without ever blocking or following a link: the
 * open is non-blocking and refuses a final symlink (a FIFO there would block this thread for good,
 * a link to /dev/zero would never end), and only a regular file of at most
 * {@link MAX_CONTROL_FILE_BYTES} is read.
 * @returns the text, or null for a symlink, FIFO, socket, device, folder or an over-long file
 * @throws the open's error for a missing or unreadable file (ENOENT, EACCES)
 */
export function readRegularFile(p: string): string | null {
  let fd: number
  try {
    fd = openSync(p, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR') return null // a link or a socket: not a control file
    throw err
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile() || st.size > MAX_CONTROL_FILE_BYTES) return null
    const buf = Buffer.alloc(st.size)
    let got = 0
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got)
      if (n === 0) break
      got += n
    }
    return buf.subarray(0, got).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** The real path of `p`, or null when it is absent or a dangling link. */
export function safeRealpath(p: string): string | null {
  try {
    return realpathSync(p)
  } catch {
    return null // absent or a dangling link: the caller treats it as unresolved
  }
}

/** The sorted names of the folders in `dir`; none when it is absent or unreadable. */
export function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()
  } catch {
    return [] // absent or unreadable folder: nothing below it to protect
  }
}
