/**
 * What the parts of a session's checkpoints share (session-checkpoints.ts builds it): the session's
 * side ({@link CheckpointHost}), the logger, one queue that serializes the session's store
 * operations, and the store through the repository's checkpoint guest.
 */
import type { SessionEvent } from '../../shared/events'
import type { Logger } from '../../shared/logger-types'
import type { Guest, StoreLease } from '../guest/guest'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { ShadowStore } from './shadow-store'

/** What the checkpoints need from their session. */
export interface CheckpointHost {
  sessionId: string
  /** The session's persisted events so far. */
  events(): readonly SessionEvent[]
  emit(event: SessionEvent): void
  /** The session's attached guest (attaching one if needed): a turn's tools wait for its `before` snapshot. */
  getGuest(): Promise<Guest>
  /** A lease on the repository's checkpoint guest (GuestProvider.checkpointLease); undefined: no checkpoints. Asked once, released by SessionCheckpoints.close. */
  checkpointLease(): StoreLease | undefined
  /** The session's sandbox policy now (`read-only`: no snapshots). */
  getSandbox(): SandboxPolicy
  /** Whether the session has a guest attached or attaching (then a turn snapshots at its start). */
  hasGuest(): boolean
  /** Whether a turn is running (reverts are refused then). */
  isRunning(): boolean
  logger?: Logger
}

/** The shared state of one session's checkpoint parts (see the module comment). */
export interface CheckpointCore {
  host: CheckpointHost
  log: Logger
  /** Run `fn` after every earlier store operation of this session has settled. */
  serial<T>(fn: () => Promise<T>): Promise<T>
  /**
   * The repository's store through its checkpoint guest (started if needed), or null when the
   * provider records no checkpoints. Aborting `signal` ends the wait for a starting guest.
   * @throws CortexError when the checkpoint guest cannot be started or the session is closed
   */
  store(signal?: AbortSignal): Promise<ShadowStore | null>
  /** Whether the session closed (its lease released: a store operation in flight may fail for that alone). */
  isClosed(): boolean
}
