/**
 * Pure parts of a session's checkpoints: the names of its snapshot refs in the repository's store,
 * and what the session's events say about them (which turns were recorded, the last known state,
 * a turn a crash left open). No I/O.
 *
 * Turn T has `refs/cortex/<session>/t/<T>/before` and `.../after`; revert R has
 * `refs/cortex/<session>/r/<R>/before` (the tree just before it) and `.../after`.
 */
import type { FileChange } from '../../shared/checkpoints'
import type { SessionEvent } from '../../shared/events'

/** Which snapshot: a turn's (`t`) or a revert's (`r`). */
export type RefKind = 't' | 'r'
/** Which side of a turn or revert. */
export type RefSide = 'before' | 'after'

/** The ref of turn or revert `id`'s `side` snapshot, in session `sessionId`. */
export function snapshotRef(sessionId: string, kind: RefKind, id: string, side: RefSide): string {
  return `refs/cortex/${sessionId}/${kind}/${id}/${side}`
}

/** The prefix of every ref of session `sessionId` (with `turnId`: of that turn only); ends in `/`. */
export function refPrefix(sessionId: string, turnId?: string): string {
  return turnId ? `refs/cortex/${sessionId}/t/${turnId}/` : `refs/cortex/${sessionId}/`
}

/** One turn that has a `turn_changes` event: its id, its number among all the session's turns (from 1) and its files. */
export interface RecordedTurn {
  turnId: string
  index: number
  files: FileChange[]
  /** Files beyond `files` (which lists at most 1000). */
  more?: number
}

/** Turns with a `turn_changes` event, oldest first, numbered from 1 among all the session's turns. */
export function recordedTurns(events: readonly SessionEvent[]): RecordedTurn[] {
  const index = new Map<string, number>()
  for (const e of events) if (e.type === 'turn_started' && !index.has(e.turnId)) index.set(e.turnId, index.size + 1)
  const out: RecordedTurn[] = []
  for (const e of events) if (e.type === 'turn_changes') out.push({ turnId: e.turnId, index: index.get(e.turnId) ?? 0, files: e.files, ...(e.more ? { more: e.more } : {}) })
  return out
}

/** The ref of the last state session `sessionId` recorded (newest turn end or revert), or undefined. */
export function latestRef(sessionId: string, events: readonly SessionEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i] as SessionEvent
    if (e.type === 'turn_changes') return snapshotRef(sessionId, 't', e.turnId, 'after')
    if (e.type === 'changes_reverted') return snapshotRef(sessionId, 'r', e.revertId, 'after')
  }
  return undefined
}

/**
 * The newest turn other than `current` when it has neither `turn_changes` nor an end-stage
 * `checkpoint_failed` (a crash may have cut it off), else undefined.
 */
export function unrecordedLastTurn(events: readonly SessionEvent[], current: string): string | undefined {
  const recorded = new Set<string>()
  for (const e of events) if (e.type === 'turn_changes' || (e.type === 'checkpoint_failed' && e.stage === 'after')) recorded.add(e.turnId)
  const last = [...events].reverse().find((e) => e.type === 'turn_started' && e.turnId !== current) as { turnId: string } | undefined
  return last && !recorded.has(last.turnId) ? last.turnId : undefined
}

/**
 * Whether the newest turn without a recorded end snapshot was cut off by a crash: it has no
 * `turn_ended` of its own, or a resume closed it (`session_resumed.interruptedTurn`). A turn that
 * ended by itself without `turn_changes` took no snapshot, so there is nothing to close.
 */
export function crashCutOff(events: readonly SessionEvent[]): boolean {
  const last = unrecordedLastTurn(events, '')
  if (!last) return false
  let ended = false
  for (const e of events) {
    if (e.type === 'session_resumed' && e.interruptedTurn === last) return true
    if (e.type === 'turn_ended' && e.turnId === last) ended = true
  }
  return !ended
}

/** Whether `p` is a plain repository-relative path: not absolute, no empty, `.` or `..` segment, not in `.git`. */
export function isRepoPath(p: string | undefined): p is string {
  if (!p || p.startsWith('/')) return false
  const parts = p.split('/')
  return parts.every((x) => x !== '' && x !== '.' && x !== '..') && parts[0] !== '.git'
}

/** Every path a list of changes touches (both sides of a rename), each once. */
export function pathsOf(files: FileChange[]): string[] {
  return [...new Set(files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path])))]
}
