/**
 * Per-guest tool memory (one guest per session, so this is per-session state): what the model last
 * saw of each file (content hashes, for edit_file's stale-file check), a per-path async mutex that
 * serialises writes to the same file, and bash's persistent working directory. Kept in a WeakMap
 * keyed by the Guest object, so it disappears with the guest and a restarted guest starts clean.
 */
import { createHash } from 'node:crypto'
import type { Guest } from '../guest/guest'

/**
 * What the model last saw of one file: the sha256 of its first `bytes` bytes. `complete` is true when
 * those bytes were the whole file (a full read, a write, an edit); false for a first page of a large file.
 */
export interface SeenContent {
  bytes: number
  sha256: string
  complete: boolean
}

/** Mutable tool state of one guest. */
interface GuestToolState {
  seen: Map<string, SeenContent>
  locks: Map<string, Promise<void>>
  /** bash's working directory (real absolute path in the guest); undefined = the workspace root. */
  bashCwd?: string
}

const states = new WeakMap<Guest, GuestToolState>()

function stateOf(guest: Guest): GuestToolState {
  let s = states.get(guest)
  if (!s) {
    s = { seen: new Map(), locks: new Map() }
    states.set(guest, s)
  }
  return s
}

/** sha256 (hex) of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/**
 * Remember what the model has now seen of `realPath`.
 * @param realPath real absolute path in the guest
 */
export function rememberSeen(guest: Guest, realPath: string, seen: SeenContent): void {
  stateOf(guest).seen.set(realPath, seen)
}

/** Remember that the model knows the whole of `realPath` as `bytes` (after a write or an edit). */
export function rememberWhole(guest: Guest, realPath: string, bytes: Uint8Array): void {
  rememberSeen(guest, realPath, { bytes: bytes.length, sha256: sha256Hex(bytes), complete: true })
}

/** What the model last saw of `realPath`, or undefined when it never read or wrote it in this session. */
export function lastSeen(guest: Guest, realPath: string): SeenContent | undefined {
  return stateOf(guest).seen.get(realPath)
}

/**
 * Whether `current` (the file's bytes now) differs from what the model last saw. Content-based: an
 * identical rewrite is not a change. A file never seen is not stale (there is nothing to compare).
 */
export function isStale(seen: SeenContent | undefined, current: Uint8Array): boolean {
  if (!seen) return false
  if (seen.complete ? current.length !== seen.bytes : current.length < seen.bytes) return true
  return sha256Hex(current.subarray(0, seen.bytes)) !== seen.sha256
}

/**
 * Run `fn` while holding the lock of `realPath` on `guest`: calls for the same path run one after the
 * other in call order (so two parallel edits both land); other paths are not blocked.
 * @returns what `fn` resolves with; a rejection is passed on and releases the lock
 */
export async function withPathLock<T>(guest: Guest, realPath: string, fn: () => Promise<T>): Promise<T> {
  const locks = stateOf(guest).locks
  const previous = locks.get(realPath) ?? Promise.resolve()
  let release: () => void = () => undefined
  const mine = new Promise<void>((resolve) => {
    release = resolve
  })
  const tail = previous.then(() => mine)
  locks.set(realPath, tail)
  await previous
  try {
    return await fn()
  } finally {
    release()
    if (locks.get(realPath) === tail) locks.delete(realPath)
  }
}

/** bash's persistent working directory on `guest` (undefined: the workspace root). */
export function getBashCwd(guest: Guest): string | undefined {
  return stateOf(guest).bashCwd
}

/** Set (or clear, with undefined) bash's persistent working directory on `guest`. */
export function setBashCwd(guest: Guest, cwd: string | undefined): void {
  stateOf(guest).bashCwd = cwd
}
