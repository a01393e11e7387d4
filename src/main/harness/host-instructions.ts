/**
 * Repository instructions read on the host when that gives exactly what the guest would read
 * (ADR 0015): the first of {@link INSTRUCTION_FILES} at the repository root, only when it is a
 * regular file that is not a symbolic link, opened without following a link and without blocking,
 * and checked again on the open descriptor. Anything else (a link, which may resolve differently
 * inside the guest; a file the host cannot read) is left to the guest read (repo-instructions.ts),
 * so the first model request need not wait for a guest start in the usual case.
 */
import { constants } from 'node:fs'
import { lstat, open } from 'node:fs/promises'
import { join } from 'node:path'
import { INSTRUCTION_FILES, MAX_INSTRUCTIONS_BYTES } from '../../shared/session-notices'
import { instructionsFromBytes, type RepoInstructions } from './repo-instructions'

/** Returned by {@link readInstructionsOnHost} when only the guest can tell what the instructions are. */
export const ASK_THE_GUEST = Symbol('ask the guest')

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY

/**
 * The instructions of `repo` (absolute host path, bind-mounted at the same path in the guest) as the
 * guest would read them, or {@link ASK_THE_GUEST} when a candidate is a symbolic link or cannot be
 * read here; null when there are none. Never opens anything but a regular file (a FIFO or device is
 * skipped, as the guest skips it), never follows a link. Never rejects.
 */
export async function readInstructionsOnHost(repo: string): Promise<RepoInstructions | null | typeof ASK_THE_GUEST> {
  try {
    for (const file of INSTRUCTION_FILES) {
      const path = join(repo, file)
      let st
      try {
        st = await lstat(path)
      } catch (err) {
        if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) continue
        return ASK_THE_GUEST
      }
      if (st.isSymbolicLink()) return ASK_THE_GUEST // it resolves inside the guest, maybe to something else
      if (!st.isFile() || st.size === 0) continue // a folder, FIFO, socket or device: the guest skips it too
      const fh = await open(path, OPEN_FLAGS)
      try {
        const now = await fh.stat()
        // replaced between lstat and open (a link there fails the open with ELOOP)
        if (!now.isFile() || now.ino !== st.ino || now.dev !== st.dev) return ASK_THE_GUEST
        if (now.size === 0) continue
        const buf = Buffer.alloc(Math.min(now.size, MAX_INSTRUCTIONS_BYTES))
        let got = 0
        while (got < buf.length) {
          const { bytesRead } = await fh.read(buf, got, buf.length - got, got)
          if (bytesRead === 0) break
          got += bytesRead
        }
        const found = instructionsFromBytes(file, buf.subarray(0, got), now.size, now.size > MAX_INSTRUCTIONS_BYTES)
        if (found) return found
      } finally {
        await fh.close()
      }
    }
    return null
  } catch {
    return ASK_THE_GUEST // EACCES, ELOOP, EIO…: the guest reads it as the repository's owner
  }
}

function isCode(err: unknown, code: string): boolean {
  return err instanceof Error && 'code' in err && err.code === code
}
