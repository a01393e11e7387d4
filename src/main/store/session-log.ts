/**
 * The open, append-only event log of one session (`events.jsonl`, one EventEnvelope per line): 0600,
 * never through a symbolic link, started on a fresh line after a torn one, holding the session's lock.
 */
import { closeSync, fchmodSync, fstatSync, fsyncSync, readSync, writeSync } from 'node:fs'
import type { EventEnvelope } from '../../shared/events'
import { APPEND_NOFOLLOW, openNoFollow, READ_NOFOLLOW } from './no-follow'
import type { SessionLock } from './session-lock'

/** Mode of session files (owner read/write only). */
export const FILE_MODE = 0o600

/** An open, append-only event log of one session; it holds the session's lock until closed. */
export class SessionLog {
  private fd: number | null

  /**
   * @param path absolute path of `events.jsonl`; created (0600) if missing, made 0600 if not
   * @param lock the session's lock, released by {@link close}
   * @throws CortexError('invalid_input') when `path` is a symbolic link (never followed)
   */
  constructor(
    readonly path: string,
    private readonly lock?: SessionLock
  ) {
    this.fd = openNoFollow(path, APPEND_NOFOLLOW, FILE_MODE)
    fchmodSync(this.fd, FILE_MODE)
    // A crash can leave a torn last line; start on a fresh line so the next record stays valid.
    const size = fstatSync(this.fd).size
    if (size > 0) {
      const last = Buffer.alloc(1)
      const rfd = openNoFollow(path, READ_NOFOLLOW)
      try {
        readSync(rfd, last, 0, 1, size - 1)
      } finally {
        closeSync(rfd)
      }
      if (last[0] !== 0x0a) writeSync(this.fd, '\n')
    }
  }

  /** Append one envelope as a JSON line (written synchronously, so it is in the file when this returns). */
  append(envelope: EventEnvelope): void {
    if (this.fd === null) throw new Error(`session log ${this.path} is closed`)
    writeSync(this.fd, JSON.stringify(envelope) + '\n')
  }

  /** Flush to stable storage (fsync). Called at turn boundaries. */
  flush(): void {
    if (this.fd !== null) fsyncSync(this.fd)
  }

  /** Close the file and release the session's lock; later appends throw. Idempotent. */
  close(): void {
    if (this.fd === null) return
    closeSync(this.fd)
    this.fd = null
    this.lock?.release()
  }
}
