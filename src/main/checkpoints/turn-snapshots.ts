/**
 * Turn snapshots: the `before` snapshot of each turn (at its start when a guest is attached, else
 * at its first guest tool; a tool that may write waits for it, a read-only one does not), the `after` one at its end whatever way it ended,
 * a turn a crash cut off closed at the next turn's start or at a resume, `turn_changes`, and pruning
 * beyond {@link MAX_TURNS_KEPT} turns. Store operations go through {@link CheckpointCore}, serialized
 * per session.
 */
import { errorFields } from '../../shared/logger-types'
import type { Guest } from '../guest/guest'
import { crashCutOff, recordedTurns, refPrefix, snapshotRef, unrecordedLastTurn } from './checkpoint-refs'
import type { CheckpointCore } from './checkpoint-core'
import type { ShadowStore } from './shadow-store'

/** Most turns of one session whose snapshots are kept; older turns' snapshots are pruned (their diffs and undo go). */
export const MAX_TURNS_KEPT = 100
/** Longest wait for the end-of-turn snapshot after Stop (ms): it needs the guest, which Stop leaves running. */
export const FINISH_DEADLINE_MS = 120_000
/** How long a stopped turn waits for its end snapshot before ending anyway (ms; the snapshot goes on, serialized before any later one). */
export const STOPPED_FINISH_WAIT_MS = 1_000

/**
 * Tools that only read the repository: they never wait for the turn's `before` snapshot (ADR 0026).
 * Every other tool (write_file, edit_file, bash, MCP tools, …) waits for it.
 */
export const BASELINE_FREE_TOOLS: ReadonlySet<string> = new Set(['read_file', 'glob', 'grep'])

/** See the module comment. */
export class TurnSnapshots {
  /** Turns whose `before` snapshot was started: whether it was taken. */
  private readonly begun = new Map<string, Promise<boolean>>()

  /** @param core the session's store access, see {@link CheckpointCore} */
  constructor(private readonly core: CheckpointCore) {}

  private ref(turnId: string, side: 'before' | 'after'): string {
    return snapshotRef(this.core.host.sessionId, 't', turnId, side)
  }

  /**
   * Take turn `turnId`'s `before` snapshot once (an earlier turn left without an end snapshot is
   * closed first). Resolves whether it was taken: false without a store, or when it or the
   * checkpoint guest's start failed (logged; the turn then has no `turn_changes`, and its tools run:
   * a broken checkpoint guest never blocks the session's own guest).
   */
  private begin(turnId: string): Promise<boolean> {
    const known = this.begun.get(turnId)
    if (known) return known
    const { host, log } = this.core
    const p = (async () => {
      // a read-only session's guest cannot change the repository (an escalation's one-off guest can: not recorded)
      if (host.getSandbox() === 'read-only') return false
      let store: ShadowStore | null
      try {
        store = await this.core.store()
      } catch (err) {
        log.warn('the checkpoint guest could not be had; this turn\'s changes are not recorded', { turnId, ...errorFields(err) })
        if (!this.core.isClosed()) this.failed(turnId, 'before', `the checkpoint guest could not be started: ${errorMessage(err)}`)
        return false
      }
      if (!store) return false
      return this.core.serial(async () => {
        // a turn that cannot be closed is said so, and never keeps this turn from being recorded
        await this.recoverUnfinished(store, turnId, AbortSignal.timeout(FINISH_DEADLINE_MS))
        try {
          await store.snapshot(host.sessionId, this.ref(turnId, 'before'))
          return true
        } catch (err) {
          log.warn('checkpoint before the turn failed; this turn\'s changes are not recorded', { turnId, ...errorFields(err) })
          this.failed(turnId, 'before', `the snapshot before the turn failed: ${errorMessage(err)}`)
          return false
        }
      })
    })()
    this.begun.set(turnId, p)
    p.catch(() => {
      if (this.begun.get(turnId) === p) this.begun.delete(turnId)
    })
    return p
  }

  /**
   * The guest for a tool of turn `turnId`. A tool that may change the repository (`readOnly`
   * false, the default) gets it once the turn's `before` snapshot is taken, so it never changes a
   * file before it; a read-only tool (read_file, glob, grep: {@link BASELINE_FREE_TOOLS}) gets it
   * as soon as the guest is up, the snapshot starting (not awaited) alongside, so the turn is
   * still recorded. Stop ends the wait (AbortError).
   */
  async guestForTurn(turnId: string, signal?: AbortSignal, readOnly = false): Promise<Guest> {
    const guest = await this.core.host.getGuest()
    const baseline = this.begin(turnId)
    if (readOnly) baseline.catch(() => undefined) // a failure is reported by begin itself
    else await untilAborted(baseline, signal)
    return guest
  }

  /**
   * At a resume: close a turn a crash cut off (see {@link recoverUnfinished}) now, before any review
   * or revert asked of this session runs. Never rejects (a failure is logged; the next turn retries).
   */
  recoverAtResume(): Promise<void> {
    // no turn a crash cut off (every turn ended by itself): nothing to close, no guest to reach
    if (!crashCutOff(this.core.host.events())) return Promise.resolve()
    return this.core.serial(async () => {
      try {
        const store = this.core.host.getSandbox() === 'read-only' ? null : await this.core.store(AbortSignal.timeout(FINISH_DEADLINE_MS))
        if (store) await this.recoverUnfinished(store, '', AbortSignal.timeout(FINISH_DEADLINE_MS))
      } catch (err) {
        this.core.log.warn('could not reach the checkpoint guest to close a turn a crash cut off; the next turn retries', errorFields(err))
      }
    })
  }

  /**
   * Close the newest earlier turn that has a `before` snapshot but no `turn_changes` (a crash cut it
   * off). When that fails, the turn gets `checkpoint_failed` (so no later turn tries again: its own
   * `before` snapshot holds that state). Never rejects.
   */
  private async recoverUnfinished(store: ShadowStore, current: string, signal?: AbortSignal): Promise<void> {
    const { host } = this.core
    const last = unrecordedLastTurn(host.events(), current)
    if (!last) return
    try {
      const refs = await store.refs(refPrefix(host.sessionId, last), { signal })
      const before = refs[this.ref(last, 'before')]
      if (!before) return
      const after = await store.snapshot(host.sessionId, this.ref(last, 'after'), { signal })
      const { files, more } = await store.changes(before, after, { signal })
      host.emit({ type: 'turn_changes', turnId: last, files, ...(more ? { more } : {}), storeBytes: await store.size({ signal }), recovered: true })
    } catch (err) {
      this.core.log.warn('could not record the changes of a turn a crash cut off', { turnId: last, ...errorFields(err) })
      this.failed(last, 'after', `its changes could not be recorded after a crash: ${errorMessage(err)}`)
    }
  }

  /** Say in the session's events that turn `turnId` is not (fully) recorded; never throws (a closed session takes no events). */
  private failed(turnId: string, stage: 'before' | 'after', reason: string): void {
    try {
      this.core.host.emit({ type: 'checkpoint_failed', turnId, stage, reason })
    } catch (err) {
      this.core.log.debug('could not emit checkpoint_failed', { turnId, ...errorFields(err) })
    }
  }

  /**
   * Run turn `turnId` and then {@link finishTurn} it, whatever way it ends. With a guest attached
   * (or attaching) the `before` snapshot starts at once; otherwise at the turn's first guest tool.
   * When `signal` (the turn's Stop) has aborted, waits at most {@link STOPPED_FINISH_WAIT_MS} for the
   * end snapshot, which then completes (and emits `turn_changes`) after the turn has ended.
   */
  async around<T>(turnId: string, run: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    // a guest is attached or attaching: snapshot now, alongside the first model request
    if (this.core.host.hasGuest()) this.begin(turnId).catch((err: unknown) => this.core.log.debug('no checkpoint at the turn start (no guest yet)', { turnId, ...errorFields(err) }))
    try {
      return await run()
    } finally {
      // after Stop (before the end snapshot or during it) the turn ends within 2 s: a snapshot of a
      // large tree goes on, and its turn_changes follows turn_ended
      await untilStoppedAndWaited(this.finishTurn(turnId), signal, STOPPED_FINISH_WAIT_MS)
    }
  }

  /**
   * At the end of turn `turnId` (completed, stopped or failed): snapshot again and emit
   * `turn_changes` when the turn had a `before` snapshot. Never rejects (failures are logged).
   */
  async finishTurn(turnId: string): Promise<void> {
    const begun = this.begun.get(turnId)
    if (!begun) return
    this.begun.delete(turnId)
    if (!(await begun.catch(() => false))) return
    const signal = AbortSignal.timeout(FINISH_DEADLINE_MS)
    const { host } = this.core
    await this.core.serial(async () => {
      let recorded = false
      try {
        const store = await this.core.store(signal)
        if (!store) return
        const after = await store.snapshot(host.sessionId, this.ref(turnId, 'after'), { signal })
        const refs = await store.refs(refPrefix(host.sessionId, turnId), { signal })
        const before = refs[this.ref(turnId, 'before')]
        if (!before) throw new Error('the snapshot before the turn is missing from the store')
        const { files, more } = await store.changes(before, after, { signal })
        host.emit({ type: 'turn_changes', turnId, files, ...(more ? { more } : {}), storeBytes: await store.size({ signal }) })
        recorded = true
        await this.prune(store, signal)
      } catch (err) {
        if (recorded) return this.core.log.warn('could not prune old checkpoints', { turnId, ...errorFields(err) })
        this.core.log.warn('checkpoint at the end of the turn failed; the next turn (or a resume) records it', { turnId, ...errorFields(err) })
        // a session closing under its end snapshot (Ctrl-C twice, quit) leaves the turn to the
        // recovery at the next turn or resume; any other failure is final for this turn
        if (!this.core.isClosed()) this.failed(turnId, 'after', `the snapshot at the end of the turn failed: ${errorMessage(err)}`)
      }
    })
  }

  /** Drop the snapshots of turns beyond the newest {@link MAX_TURNS_KEPT} of this session. */
  private async prune(store: ShadowStore, signal: AbortSignal): Promise<void> {
    const turns = recordedTurns(this.core.host.events())
    if (turns.length <= MAX_TURNS_KEPT) return
    const old = turns.slice(0, turns.length - MAX_TURNS_KEPT)
    await store.drop(old.flatMap((t) => [this.ref(t.turnId, 'before'), this.ref(t.turnId, 'after')]), true, { signal })
  }
}

/**
 * Resolves when `p` settles, or `ms` after `signal` aborted (before or during the wait), whichever
 * comes first; `p` goes on. Never rejects.
 */
function untilStoppedAndWaited(p: Promise<void>, signal: AbortSignal | undefined, ms: number): Promise<void> {
  const done = p.catch(() => undefined)
  if (!signal) return done
  let timer: NodeJS.Timeout | undefined
  let onAbort = (): void => undefined
  const stopped = new Promise<void>((resolve) => {
    onAbort = (): void => void (timer = setTimeout(resolve, ms).unref())
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  return Promise.race([done, stopped]).finally(() => {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
  })
}

/** `p`'s value, or an AbortError as soon as `signal` aborts (`p` goes on; its rejection is then ignored). */
function untilAborted<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p
  if (signal.aborted) return Promise.reject(new DOMException('stopped', 'AbortError'))
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new DOMException('stopped', 'AbortError'))
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** The message of `err` for the user (one line, at most 300 characters). */
function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err)
  return text.replace(/\s+/g, ' ').trim().slice(0, 300)
}
