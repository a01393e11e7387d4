/**
 * File access in the data folder that never follows a symbolic link (issue 16 item 4): a session
 * folder or file replaced by a link (by anything that can write the data folder) would otherwise
 * let Cortex append to, chmod or read a file outside it. Opens use O_NOFOLLOW; folders and chmod
 * targets are checked with lstat. A link is refused with a CortexError naming it.
 */
import { constants, lstatSync, chmodSync, openSync } from 'node:fs'
import { CortexError } from '../../shared/errors'

const { O_NOFOLLOW, O_APPEND, O_CREAT, O_RDONLY, O_TRUNC, O_WRONLY } = constants

/** Flags of an append-only log opened (created 0600 when missing) without following a link. */
export const APPEND_NOFOLLOW = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW
/** Flags of a file written from scratch without following a link. */
export const WRITE_NOFOLLOW = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW
/** Flags of a file read without following a link. */
export const READ_NOFOLLOW = O_RDONLY | O_NOFOLLOW

function linkRefused(path: string, cause?: unknown): CortexError {
  return new CortexError(
    'invalid_input',
    `${path} is a symbolic link; Cortex never follows links in its data folder (it could write outside it). Remove the link and open the session again.`,
    cause === undefined ? undefined : { cause }
  )
}

/**
 * openSync(path, flags | O_NOFOLLOW, mode).
 * @returns the file descriptor
 * @throws CortexError('invalid_input') when `path` is a symbolic link; other fs errors as thrown
 */
export function openNoFollow(path: string, flags: number, mode?: number): number {
  try {
    return openSync(path, flags | O_NOFOLLOW, mode)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw linkRefused(path, err)
    throw err
  }
}

/**
 * Throw when `path` is a symbolic link (an absent path passes).
 * @throws CortexError('invalid_input') naming the link
 */
export function refuseLink(path: string): void {
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) throw linkRefused(path)
}

/**
 * chmod `path` unless it is a symbolic link (chmod would change the link's target).
 * @throws CortexError('invalid_input') for a link; the fs error when `path` is missing
 */
export function chmodNoFollow(path: string, mode: number): void {
  refuseLink(path)
  chmodSync(path, mode)
}
