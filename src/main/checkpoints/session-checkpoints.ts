/**
 * A session's checkpoints: a snapshot of the repository before the first guest tool of each turn
 * runs and one at the turn's end (after Stop and errors too; a turn cut off by a crash is closed at
 * the next turn's start), the `turn_changes` event, and reviews and reverts over the snapshots.
 * Every snapshot, diff and restore runs in the repository's checkpoint guest (shadow-store.ts,
 * guest/checkpoint-guests.ts), a container no model command runs in: the session's own guest does
 * not mount the store. Operations are serialized per session. A `read-only` session takes no snapshots.
 *
 * In parts: ref naming and event queries (checkpoint-refs.ts, pure), turn snapshots
 * (turn-snapshots.ts), review and revert (change-review.ts); this class owns the checkpoint guest
 * lease and the queue they share (checkpoint-core.ts).
 */
import { CortexError } from '../../shared/errors'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { StoreLease } from '../guest/guest'
import type { SandboxPolicy } from '../../shared/sandbox'
import { ChangeReview } from './change-review'
import { recordedTurns, type RecordedTurn } from './checkpoint-refs'
import type { CheckpointCore, CheckpointHost } from './checkpoint-core'
import { ShadowStore } from './shadow-store'
import { TurnSnapshots } from './turn-snapshots'

export type { CheckpointHost } from './checkpoint-core'
export { isRepoPath } from './checkpoint-refs'
export { BASELINE_FREE_TOOLS, FINISH_DEADLINE_MS, MAX_TURNS_KEPT, STOPPED_FINISH_WAIT_MS } from './turn-snapshots'

/** See the module comment. */
export class SessionCheckpoints {
  private chain: Promise<unknown> = Promise.resolve()
  private readonly log: Logger
  /** The checkpoint guest lease: unset until first needed, null when the provider records no checkpoints. */
  private lease: StoreLease | null | undefined
  private closed = false
  private readonly turns: TurnSnapshots
  private readonly review: ChangeReview

  /** @param host the session's side, see {@link CheckpointHost} */
  constructor(private readonly host: CheckpointHost) {
    this.log = host.logger ?? NOOP_LOGGER
    const core: CheckpointCore = { host, log: this.log, serial: (fn) => this.serial(fn), store: (signal) => this.store(signal), isClosed: () => this.closed }
    this.turns = new TurnSnapshots(core)
    this.review = new ChangeReview(core)
  }

  /** Run `fn` after every earlier operation of this session has settled. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn)
    this.chain = run.catch(() => undefined)
    return run
  }

  /** See {@link CheckpointCore.store}. */
  private async store(signal?: AbortSignal): Promise<ShadowStore | null> {
    if (this.closed) throw new CortexError('guest_failed', 'the session is closed')
    if (this.lease === undefined) this.lease = this.host.checkpointLease() ?? null
    if (!this.lease) return null
    const guest = await this.lease.guest(signal)
    return guest.checkpointStore ? new ShadowStore(guest) : null
  }

  /**
   * Start the repository's checkpoint guest in the background, so that the first turn's `before`
   * snapshot finds it running (the session calls it when its own guest starts attaching, with the
   * policy of that guest). Nothing for a `read-only` policy (no snapshots), a closed session or a
   * provider without checkpoints. Never throws: a start that fails is logged, and the first store
   * operation starts it again (its failure then leaves that turn unrecorded). The start is released
   * (and aborted, when still starting) by {@link close}.
   */
  warm(sandbox: SandboxPolicy): void {
    if (this.closed || sandbox === 'read-only') return
    if (this.lease === undefined) this.lease = this.host.checkpointLease() ?? null
    this.lease?.guest().catch((err: unknown) => this.log.debug('early start of the checkpoint guest failed; the first snapshot retries', errorFields(err)))
  }

  /** Session close: give the checkpoint guest lease back (the repository's last session removes the guest). Never rejects. */
  async close(): Promise<void> {
    this.closed = true
    const lease = this.lease
    this.lease = null
    await lease?.release().catch((err: unknown) => this.log.warn('could not release the checkpoint guest', errorFields(err)))
  }

  /** See {@link TurnSnapshots.guestForTurn}. */
  guestForTurn: TurnSnapshots['guestForTurn'] = (turnId, signal, readOnly) => this.turns.guestForTurn(turnId, signal, readOnly)
  /** See {@link TurnSnapshots.recoverAtResume}. */
  recoverAtResume: TurnSnapshots['recoverAtResume'] = () => this.turns.recoverAtResume()
  /** See {@link TurnSnapshots.around}. */
  around<T>(turnId: string, run: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.turns.around(turnId, run, signal)
  }
  /** See {@link TurnSnapshots.finishTurn}. */
  finishTurn: TurnSnapshots['finishTurn'] = (turnId) => this.turns.finishTurn(turnId)

  /** Turns with a `turn_changes` event, oldest first, numbered from 1 among all the session's turns. */
  recordedTurns(): RecordedTurn[] {
    return recordedTurns(this.host.events())
  }

  /** See {@link ChangeReview.listChanges}. */
  listChanges: ChangeReview['listChanges'] = () => this.review.listChanges()
  /** See {@link ChangeReview.fileDiff}. */
  fileDiff: ChangeReview['fileDiff'] = (path, turnId) => this.review.fileDiff(path, turnId)
  /** See {@link ChangeReview.patch}. */
  patch: ChangeReview['patch'] = (turnId) => this.review.patch(turnId)
  /** See {@link ChangeReview.revert}. */
  revert: ChangeReview['revert'] = (turnId, scope, opts) => this.review.revert(turnId, scope, opts)
  /** See {@link ChangeReview.redo}. */
  redo: ChangeReview['redo'] = (revertId, force) => this.review.redo(revertId, force)
}
