/**
 * A session's checkpoints: a snapshot of the repository before the first guest tool of each turn
 * runs and one at the turn's end (after Stop and errors too; a turn cut off by a crash is closed at
 * the next turn's start), the `turn_changes` event, and reviews and reverts over the snapshots.
 * Every snapshot, diff and restore runs in the repository's checkpoint guest (shadow-store.ts,
 * guest/checkpoint-guests.ts), a container no model command runs in: the session's own guest does
 * not mount the store. The refs of a session live under `refs/cortex/<session>/` of the repository's
 * store. Operations are serialized per session. A `read-only` session takes no snapshots.
 *
 * Which snapshot is which, from the session's events: turn T has `t/<T>/before` and `t/<T>/after`;
 * revert R has `r/<R>/before` (the tree just before it) and `r/<R>/after`. The newest of the
 * `after` refs named by the session's `turn_changes` / `changes_reverted` events is the last state
 * the session knows of: a revert that would overwrite a path that differs from it now asks first.
 */
import { randomUUID } from 'node:crypto'
import type { FileChange, RevertResult, RevertScope } from '../../shared/checkpoints'
import { CortexError } from '../../shared/errors'
import type { SessionEvent } from '../../shared/events'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { Guest, StoreLease } from '../guest/guest'
import type { SandboxPolicy } from '../../shared/sandbox'
import { ShadowStore } from './shadow-store'

/** Most turns of one session whose snapshots are kept; older turns' snapshots are pruned (their diffs and undo go). */
export const MAX_TURNS_KEPT = 100
/** Longest wait for the end-of-turn snapshot after Stop (ms): it needs the guest, which Stop leaves running. */
export const FINISH_DEADLINE_MS = 120_000
/** How long a stopped turn waits for its end snapshot before ending anyway (ms; the snapshot goes on, serialized before any later one). */
export const STOPPED_FINISH_WAIT_MS = 1_000

/** What {@link SessionCheckpoints} needs from its session. */
export interface CheckpointHost {
  sessionId: string
  /** The session's persisted events so far. */
  events(): readonly SessionEvent[]
  emit(event: SessionEvent): void
  /** The session's attached guest (attaching one if needed): a turn's tools wait for its `before` snapshot. */
  getGuest(): Promise<Guest>
  /** A lease on the repository's checkpoint guest (GuestProvider.checkpointLease); undefined: no checkpoints. Asked once, released by {@link SessionCheckpoints.close}. */
  checkpointLease(): StoreLease | undefined
  /** The session's sandbox policy now (`read-only`: no snapshots). */
  getSandbox(): SandboxPolicy
  /** Whether the session has a guest attached or attaching (then a turn snapshots at its start). */
  hasGuest(): boolean
  /** Whether a turn is running (reverts are refused then). */
  isRunning(): boolean
  logger?: Logger
}

/** See the module comment. */
export class SessionCheckpoints {
  private chain: Promise<unknown> = Promise.resolve()
  /** Turns whose `before` snapshot was started: whether it was taken. */
  private readonly begun = new Map<string, Promise<boolean>>()
  private readonly log: Logger
  /** The checkpoint guest lease: unset until first needed, null when the provider records no checkpoints. */
  private lease: StoreLease | null | undefined
  private closed = false

  /** @param host the session's side, see {@link CheckpointHost} */
  constructor(private readonly host: CheckpointHost) {
    this.log = host.logger ?? NOOP_LOGGER
  }

  private ref(kind: 't' | 'r', id: string, side: 'before' | 'after'): string {
    return `refs/cortex/${this.host.sessionId}/${kind}/${id}/${side}`
  }

  /** Run `fn` after every earlier operation of this session has settled. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn)
    this.chain = run.catch(() => undefined)
    return run
  }

  /**
   * The repository's store through its checkpoint guest (started if needed), or null when the
   * provider records no checkpoints. Aborting `signal` ends the wait for a starting guest.
   * @throws CortexError when the checkpoint guest cannot be started or the session is closed
   */
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

  /**
   * Take turn `turnId`'s `before` snapshot once (an earlier turn left without an end snapshot is
   * closed first). Resolves whether it was taken: false without a store, or when it or the
   * checkpoint guest's start failed (logged; the turn then has no `turn_changes`, and its tools run:
   * a broken checkpoint guest never blocks the session's own guest).
   */
  private begin(turnId: string): Promise<boolean> {
    const known = this.begun.get(turnId)
    if (known) return known
    const p = (async () => {
      // a read-only session's guest cannot change the repository (an escalation's one-off guest can: not recorded)
      if (this.host.getSandbox() === 'read-only') return false
      let store: ShadowStore | null
      try {
        store = await this.store()
      } catch (err) {
        this.log.warn('the checkpoint guest could not be had; this turn\'s changes are not recorded', { turnId, ...errorFields(err) })
        return false
      }
      if (!store) return false
      return this.serial(async () => {
        try {
          await this.recoverUnfinished(store, turnId, AbortSignal.timeout(FINISH_DEADLINE_MS))
          await store.snapshot(this.host.sessionId, this.ref('t', turnId, 'before'))
          return true
        } catch (err) {
          this.log.warn('checkpoint before the turn failed; this turn\'s changes are not recorded', { turnId, ...errorFields(err) })
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
   * The guest for a tool of turn `turnId`, once the turn's `before` snapshot is taken (so a tool
   * never changes a file before it). Stop ends the wait (AbortError).
   */
  async guestForTurn(turnId: string, signal?: AbortSignal): Promise<Guest> {
    const guest = await this.host.getGuest()
    await untilAborted(this.begin(turnId), signal)
    return guest
  }

  /**
   * At a resume: close a turn a crash cut off (see {@link recoverUnfinished}) now, before any review
   * or revert asked of this session runs. Never rejects (a failure is logged; the next turn retries).
   */
  recoverAtResume(): Promise<void> {
    return this.serial(async () => {
      try {
        const store = this.host.getSandbox() === 'read-only' ? null : await this.store(AbortSignal.timeout(FINISH_DEADLINE_MS))
        if (store) await this.recoverUnfinished(store, '', AbortSignal.timeout(FINISH_DEADLINE_MS))
      } catch (err) {
        this.log.warn('could not record the changes of a turn a crash cut off; the next turn retries', errorFields(err))
      }
    })
  }

  /** Close the newest earlier turn that has a `before` snapshot but no `turn_changes` (a crash cut it off). */
  private async recoverUnfinished(store: ShadowStore, current: string, signal?: AbortSignal): Promise<void> {
    const events = this.host.events()
    const recorded = new Set(events.filter((e) => e.type === 'turn_changes').map((e) => (e as { turnId: string }).turnId))
    const last = [...events].reverse().find((e) => e.type === 'turn_started' && e.turnId !== current) as { turnId: string } | undefined
    if (!last || recorded.has(last.turnId)) return
    const refs = await store.refs(`refs/cortex/${this.host.sessionId}/t/${last.turnId}/`, { signal })
    const before = refs[this.ref('t', last.turnId, 'before')]
    if (!before) return
    const after = await store.snapshot(this.host.sessionId, this.ref('t', last.turnId, 'after'), { signal })
    const files = await store.changes(before, after, { signal })
    this.host.emit({ type: 'turn_changes', turnId: last.turnId, files, storeBytes: await store.size({ signal }), recovered: true })
  }

  /**
   * Run turn `turnId` and then {@link finishTurn} it, whatever way it ends. With a guest attached
   * (or attaching) the `before` snapshot starts at once; otherwise at the turn's first guest tool.
   * When `signal` (the turn's Stop) has aborted, waits at most {@link STOPPED_FINISH_WAIT_MS} for the
   * end snapshot, which then completes (and emits `turn_changes`) after the turn has ended.
   */
  async around<T>(turnId: string, run: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    // a guest is attached or attaching: snapshot now, alongside the first model request
    if (this.host.hasGuest()) this.begin(turnId).catch((err: unknown) => this.log.debug('no checkpoint at the turn start (no guest yet)', { turnId, ...errorFields(err) }))
    try {
      return await run()
    } finally {
      const finishing = this.finishTurn(turnId)
      // after Stop the turn ends within 2 s: a snapshot of a large tree goes on, and its turn_changes follows turn_ended
      if (signal?.aborted) await Promise.race([finishing, delay(STOPPED_FINISH_WAIT_MS)])
      else await finishing
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
    await this.serial(async () => {
      try {
        const store = await this.store(signal)
        if (!store) return
        const after = await store.snapshot(this.host.sessionId, this.ref('t', turnId, 'after'), { signal })
        const refs = await store.refs(`refs/cortex/${this.host.sessionId}/t/${turnId}/`, { signal })
        const before = refs[this.ref('t', turnId, 'before')]
        if (!before) return
        const files = await store.changes(before, after, { signal })
        this.host.emit({ type: 'turn_changes', turnId, files, storeBytes: await store.size({ signal }) })
        await this.prune(store, signal)
      } catch (err) {
        this.log.warn('checkpoint at the end of the turn failed; the next turn records it', { turnId, ...errorFields(err) })
      }
    })
  }

  /** Drop the snapshots of turns beyond the newest {@link MAX_TURNS_KEPT} of this session. */
  private async prune(store: ShadowStore, signal: AbortSignal): Promise<void> {
    const turns = this.recordedTurns()
    if (turns.length <= MAX_TURNS_KEPT) return
    const old = turns.slice(0, turns.length - MAX_TURNS_KEPT)
    await store.drop(old.flatMap((t) => [this.ref('t', t.turnId, 'before'), this.ref('t', t.turnId, 'after')]), true, { signal })
  }

  /** Turns with a `turn_changes` event, oldest first, numbered from 1 among all the session's turns. */
  recordedTurns(): Array<{ turnId: string; index: number; files: FileChange[] }> {
    const events = this.host.events()
    const index = new Map<string, number>()
    for (const e of events) if (e.type === 'turn_started' && !index.has(e.turnId)) index.set(e.turnId, index.size + 1)
    const out: Array<{ turnId: string; index: number; files: FileChange[] }> = []
    for (const e of events) if (e.type === 'turn_changes') out.push({ turnId: e.turnId, index: index.get(e.turnId) ?? 0, files: e.files })
    return out
  }

  /** The ref of the last state the session recorded (newest turn end or revert). */
  private latestRef(): string | undefined {
    for (const e of [...this.host.events()].reverse()) {
      if (e.type === 'turn_changes') return this.ref('t', e.turnId, 'after')
      if (e.type === 'changes_reverted') return this.ref('r', e.revertId, 'after')
    }
    return undefined
  }

  private async open(): Promise<{ store: ShadowStore; refs: Record<string, string> }> {
    const store = await this.store(AbortSignal.timeout(FINISH_DEADLINE_MS))
    if (!store) throw new CortexError('invalid_input', 'this session records no checkpoints (no checkpoint store is configured)')
    return { store, refs: await store.refs(`refs/cortex/${this.host.sessionId}/`) }
  }

  private need(refs: Record<string, string>, ref: string | undefined, what: string): string {
    const c = ref ? refs[ref] : undefined
    if (!c) throw new CortexError('invalid_input', `no snapshot ${what} (it was pruned, or the turn changed nothing the session recorded)`)
    return c
  }

  /** The range of turn `turnId` (its before and after), or of the whole session (first before, latest state). */
  private range(refs: Record<string, string>, turnId?: string): { a: string; b: string } {
    if (turnId) return { a: this.need(refs, this.ref('t', turnId, 'before'), `before turn ${turnId}`), b: this.need(refs, this.ref('t', turnId, 'after'), `after turn ${turnId}`) }
    const first = this.recordedTurns().find((t) => refs[this.ref('t', t.turnId, 'before')])
    return { a: this.need(refs, first && this.ref('t', first.turnId, 'before'), 'before the first turn'), b: this.need(refs, this.latestRef(), 'of the latest state') }
  }

  /** The session's changes: whole session (guest diff), per turn (events), store size. */
  listChanges(): Promise<{ session: FileChange[]; turns: Array<{ turnId: string; index: number; files: FileChange[] }>; storeBytes: number }> {
    return this.serial(async () => {
      const turns = this.recordedTurns()
      if (turns.length === 0) return { session: [], turns, storeBytes: 0 }
      const { store, refs } = await this.open()
      const { a, b } = this.range(refs)
      return { session: await store.changes(a, b), turns, storeBytes: await store.size() }
    })
  }

  /** Both sides of `path` across turn `turnId` (or the session). @throws CortexError('invalid_input') for a path it did not change */
  fileDiff(path: string, turnId?: string): Promise<{ path: string; oldPath?: string; before: import('../../shared/checkpoints').FileSide | null; after: import('../../shared/checkpoints').FileSide | null }> {
    return this.serial(async () => {
      const { store, refs } = await this.open()
      const { a, b } = this.range(refs, turnId)
      const change = (await store.changes(a, b)).find((f) => f.path === path || f.oldPath === path)
      if (!change) throw new CortexError('invalid_input', `${path} did not change ${turnId ? `in turn ${turnId}` : 'in this session'}`)
      const sides = await store.show(a, b, change.path, change.oldPath)
      return { path: change.path, ...(change.oldPath ? { oldPath: change.oldPath } : {}), ...sides }
    })
  }

  /** Unified diff of turn `turnId` (or the session). */
  patch(turnId?: string): Promise<string> {
    return this.serial(async () => {
      const { store, refs } = await this.open()
      const { a, b } = this.range(refs, turnId)
      return store.patch(a, b)
    })
  }

  /** See contract `revertChanges`. */
  revert(turnId: string, scope: Exclude<RevertScope, 'redo'>, opts: { path?: string; force?: boolean; conversation?: boolean }): Promise<RevertResult> {
    if (this.host.isRunning()) return Promise.reject(new CortexError('busy', 'a turn is running: press Stop first or wait for it to end'))
    if (scope === 'file' && !isRepoPath(opts.path)) {
      return Promise.reject(new CortexError('invalid_input', 'revertChanges: scope file needs a path relative to the repository (no .., no .git)'))
    }
    return this.serial(async () => {
      const { store, refs } = await this.open()
      const target = this.need(refs, this.ref('t', turnId, 'before'), `before turn ${turnId}`)
      const revertId = randomUUID()
      const now = await store.snapshot(this.host.sessionId, this.ref('r', revertId, 'before'))
      let paths: string[]
      if (scope === 'file') paths = [opts.path as string]
      else {
        const from = scope === 'turn' ? this.need(refs, this.ref('t', turnId, 'after'), `after turn ${turnId}`) : now
        paths = pathsOf(await store.changes(target, from))
      }
      return this.apply(store, refs, { revertId, now, target, paths, turnId, scope, force: opts.force, conversation: opts.conversation })
    })
  }

  /** See contract `redoRevert`. */
  redo(revertId: string, force?: boolean): Promise<RevertResult> {
    if (this.host.isRunning()) return Promise.reject(new CortexError('busy', 'a turn is running: press Stop first or wait for it to end'))
    return this.serial(async () => {
      const undone = this.host.events().find((e) => e.type === 'changes_reverted' && e.revertId === revertId) as Extract<SessionEvent, { type: 'changes_reverted' }> | undefined
      if (!undone) throw new CortexError('invalid_input', `no revert ${revertId} in this session`)
      const { store, refs } = await this.open()
      const target = this.need(refs, this.ref('r', revertId, 'before'), `before revert ${revertId}`)
      const id = randomUUID()
      const now = await store.snapshot(this.host.sessionId, this.ref('r', id, 'before'))
      const paths = [...undone.restored, ...undone.deleted]
      return this.apply(store, refs, { revertId: id, now, target, paths, turnId: undone.turnId, scope: 'redo', redoOf: revertId, force })
    })
  }

  private async apply(
    store: ShadowStore,
    refs: Record<string, string>,
    r: { revertId: string; now: string; target: string; paths: string[]; turnId: string; scope: RevertScope; redoOf?: string; force?: boolean; conversation?: boolean }
  ): Promise<RevertResult> {
    const latest = this.latestRef()
    const known = latest ? refs[latest] : undefined
    if (known && !r.force) {
      const wanted = new Set(r.paths)
      const later = pathsOf(await store.changes(known, r.now)).filter((p) => wanted.has(p))
      if (later.length > 0) {
        await store.drop([this.ref('r', r.revertId, 'before')])
        return { status: 'conflict', files: later, patch: await store.patch(known, r.now, later) }
      }
    }
    const done = r.paths.length ? await store.restore(this.host.sessionId, r.target, r.paths) : { restored: [], deleted: [], skipped: [] }
    await store.snapshot(this.host.sessionId, this.ref('r', r.revertId, 'after'))
    this.host.emit({
      type: 'changes_reverted', revertId: r.revertId, turnId: r.turnId, scope: r.scope, ...done,
      ...(r.redoOf ? { redoOf: r.redoOf } : {}), ...(r.conversation ? { conversation: true } : {})
    })
    return { status: 'reverted', revertId: r.revertId, ...done }
  }
}

/** Whether `p` is a plain repository-relative path: not absolute, no empty, `.` or `..` segment, not in `.git`. */
export function isRepoPath(p: string | undefined): p is string {
  if (!p || p.startsWith('/')) return false
  const parts = p.split('/')
  return parts.every((x) => x !== '' && x !== '.' && x !== '..') && parts[0] !== '.git'
}

/** Resolves after `ms` without keeping the process alive. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
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

/** Every path a list of changes touches (both sides of a rename). */
function pathsOf(files: FileChange[]): string[] {
  return [...new Set(files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path])))]
}
