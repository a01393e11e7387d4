/**
 * The branch of a repository read on the host without running git (ADR 0026): `.git/HEAD` opened
 * as a regular file only — `.git` a real folder opened without following a link, HEAD reached
 * through that folder's descriptor, not a link either, opened with O_NOFOLLOW | O_NONBLOCK |
 * O_NOCTTY and checked again on its descriptor — at most 256 bytes.
 * Nothing of the repository is executed (no git, no hook, no config, no filter): the first model
 * request gets the branch while the guest, which reads the rest (git-facts.ts), is still starting.
 */
import { constants } from 'node:fs'
import { lstat, open } from 'node:fs/promises'
import { join } from 'node:path'

/** Most bytes read from HEAD (a symbolic ref or an object id fits in far fewer). */
const MAX_HEAD_BYTES = 256

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

/**
 * What the host can tell of `repo`'s git state: `branch` (a branch name, or `detached at <7 hex>`),
 * or `unknown` when only git can tell (no `.git` folder — `.git` missing, a file or a link: a
 * worktree or submodule —, HEAD odd or unreadable). Never rejects, never follows a link.
 * @param repo absolute host path of the repository
 */
export async function readHeadOnHost(repo: string): Promise<{ kind: 'branch'; branch: string } | { kind: 'unknown' }> {
  try {
    // `.git` is opened once, without following a link, and HEAD is reached through that descriptor
    // (/proc/self/fd/N/HEAD): a `.git` swapped for a link after the check cannot redirect the read
    const dir = await open(join(repo, '.git'), DIR_FLAGS)
    try {
      if (!(await dir.stat()).isDirectory()) return { kind: 'unknown' }
      const head = `/proc/self/fd/${dir.fd}/HEAD`
      const hst = await lstat(head)
      if (!hst.isFile()) return { kind: 'unknown' } // a link, FIFO, device or folder is never opened
      const fh = await open(head, OPEN_FLAGS)
      try {
        const now = await fh.stat()
        if (!now.isFile() || now.ino !== hst.ino || now.dev !== hst.dev) return { kind: 'unknown' }
        const buf = Buffer.alloc(MAX_HEAD_BYTES)
        const { bytesRead } = await fh.read(buf, 0, MAX_HEAD_BYTES, 0)
        return parseHead(buf.subarray(0, bytesRead).toString('utf8'))
      } finally {
        await fh.close()
      }
    } finally {
      await dir.close()
    }
  } catch {
    return { kind: 'unknown' } // no .git folder (missing, a file, a link: ELOOP/ENOTDIR), no /proc, unreadable
  }
}

/** The branch HEAD's text names: `ref: refs/heads/NAME`, or an object id (detached); anything else is unknown. */
export function parseHead(text: string): { kind: 'branch'; branch: string } | { kind: 'unknown' } {
  const line = text.split('\n')[0]!.trim()
  const ref = /^ref: refs\/heads\/(\S+)$/.exec(line)
  if (ref) return { kind: 'branch', branch: ref[1]! }
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(line)) return { kind: 'branch', branch: `detached at ${line.slice(0, 7)}` }
  return { kind: 'unknown' }
}
