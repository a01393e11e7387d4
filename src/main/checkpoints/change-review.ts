/**
 * Review and undo over a session's snapshots: the session's and each turn's changed files, one
 * file's two sides, unified diffs, and reverts (a file, a turn, a rewind) and redos. A revert first
 * snapshots the tree as it is now (`r/<R>/before`); a path it would touch that differs from the
 * session's last recorded state makes it answer `conflict` unless forced (docs/adr/0010-checkpoints.md).
 */
import { randomUUID } from 'node:crypto'
import type { FileChange, FileSide, RevertResult, RevertScope } from '../../shared/checkpoints'
import { CortexError } from '../../shared/errors'
import type { SessionEvent } from '../../shared/events'
import { isRepoPath, latestRef, pathsOf, recordedTurns, refPrefix, snapshotRef, type RecordedTurn, type RefKind, type RefSide } from './checkpoint-refs'
import type { CheckpointCore } from './checkpoint-core'
import type { ChangeSelection, ShadowStore } from './shadow-store'
import { FINISH_DEADLINE_MS } from './turn-snapshots'
import { conflictCauses } from './conflict-sessions'

/** Most paths a conflict lists (and diffs: they go on a command line in the guest). */
const CONFLICT_LIST_MAX = 200

/** See the module comment. */
export class ChangeReview {
  /** @param core the session's store access, see {@link CheckpointCore} */
  constructor(private readonly core: CheckpointCore) {}

  private ref(kind: RefKind, id: string, side: RefSide): string {
    return snapshotRef(this.core.host.sessionId, kind, id, side)
  }

  private async open(): Promise<{ store: ShadowStore; refs: Record<string, string> }> {
    const store = await this.core.store(AbortSignal.timeout(FINISH_DEADLINE_MS))
    if (!store) throw new CortexError('invalid_input', 'this session records no checkpoints (no checkpoint store is configured)')
    return { store, refs: await store.refs(refPrefix(this.core.host.sessionId)) }
  }

  private need(refs: Record<string, string>, ref: string | undefined, what: string, turnId?: string): string {
    const c = ref ? refs[ref] : undefined
    if (c) return c
    const failed = turnId ? this.core.host.events().find((e) => e.type === 'checkpoint_failed' && e.turnId === turnId) : undefined
    if (failed?.type === 'checkpoint_failed') throw new CortexError('invalid_input', `no snapshot ${what}: that turn's changes were not recorded (${failed.reason})`)
    throw new CortexError('invalid_input', `no snapshot ${what} (it was pruned, or the turn changed nothing the session recorded)`)
  }

  /** The range of turn `turnId` (its before and after), or of the whole session (first before, latest state). */
  private range(refs: Record<string, string>, turnId?: string): { a: string; b: string } {
    if (turnId) return { a: this.need(refs, this.ref('t', turnId, 'before'), `before turn ${turnId}`, turnId), b: this.need(refs, this.ref('t', turnId, 'after'), `after turn ${turnId}`, turnId) }
    const events = this.core.host.events()
    const first = recordedTurns(events).find((t) => refs[this.ref('t', t.turnId, 'before')])
    return { a: this.need(refs, first && this.ref('t', first.turnId, 'before'), 'before the first turn'), b: this.need(refs, latestRef(this.core.host.sessionId, events), 'of the latest state') }
  }

  /** The session's changes: whole session (guest diff), per turn (events), store size. */
  listChanges(): Promise<{ session: FileChange[]; sessionMore?: number; turns: RecordedTurn[]; storeBytes: number }> {
    return this.core.serial(async () => {
      const turns = recordedTurns(this.core.host.events())
      if (turns.length === 0) return { session: [], turns, storeBytes: 0 }
      const { store, refs } = await this.open()
      const { a, b } = this.range(refs)
      const { files, more } = await store.changes(a, b)
      return { session: files, ...(more ? { sessionMore: more } : {}), turns, storeBytes: await store.size() }
    })
  }

  /** Both sides of `path` across turn `turnId` (or the session). @throws CortexError('invalid_input') for a path it did not change */
  fileDiff(path: string, turnId?: string): Promise<{ path: string; oldPath?: string; before: FileSide | null; after: FileSide | null }> {
    return this.core.serial(async () => {
      const { store, refs } = await this.open()
      const { a, b } = this.range(refs, turnId)
      const change = (await store.changes(a, b, { within: [path] })).files.find((f) => f.path === path || f.oldPath === path)
      if (!change) throw new CortexError('invalid_input', `${path} did not change ${turnId ? `in turn ${turnId}` : 'in this session'}`)
      const sides = await store.show(a, b, change.path, change.oldPath)
      return { path: change.path, ...(change.oldPath ? { oldPath: change.oldPath } : {}), ...sides }
    })
  }

  /** Unified diff of turn `turnId` (or the session). */
  patch(turnId?: string): Promise<string> {
    return this.core.serial(async () => {
      const { store, refs } = await this.open()
      const { a, b } = this.range(refs, turnId)
      return store.patch(a, b)
    })
  }

  /** See contract `revertChanges`. */
  revert(turnId: string, scope: Exclude<RevertScope, 'redo'>, opts: { path?: string; force?: boolean; conversation?: boolean }): Promise<RevertResult> {
    if (this.core.host.isRunning()) return Promise.reject(new CortexError('busy', 'a turn is running: press Stop first or wait for it to end'))
    if (scope === 'file' && !isRepoPath(opts.path)) {
      return Promise.reject(new CortexError('invalid_input', 'revertChanges: scope file needs a path relative to the repository (no .., no .git)'))
    }
    return this.core.serial(async () => {
      const { store, refs } = await this.open()
      const target = this.need(refs, this.ref('t', turnId, 'before'), `before turn ${turnId}`, turnId)
      const revertId = randomUUID()
      const now = await store.snapshot(this.core.host.sessionId, this.ref('r', revertId, 'before'))
      // a turn's or rewind's paths are listed in the guest: they may be too many for a command line
      const paths: ChangeSelection = scope === 'file' ? [opts.path as string]
        : { a: target, b: scope === 'turn' ? this.need(refs, this.ref('t', turnId, 'after'), `after turn ${turnId}`) : now }
      return this.apply(store, refs, { revertId, now, target, paths, turnId, scope, force: opts.force, conversation: opts.conversation })
    })
  }

  /** See contract `redoRevert`. */
  redo(revertId: string, force?: boolean): Promise<RevertResult> {
    if (this.core.host.isRunning()) return Promise.reject(new CortexError('busy', 'a turn is running: press Stop first or wait for it to end'))
    return this.core.serial(async () => {
      const undone = this.core.host.events().find((e) => e.type === 'changes_reverted' && e.revertId === revertId) as Extract<SessionEvent, { type: 'changes_reverted' }> | undefined
      if (!undone) throw new CortexError('invalid_input', `no revert ${revertId} in this session`)
      const { store, refs } = await this.open()
      const target = this.need(refs, this.ref('r', revertId, 'before'), `before revert ${revertId}`)
      const id = randomUUID()
      const now = await store.snapshot(this.core.host.sessionId, this.ref('r', id, 'before'))
      // what the revert changed: the paths that differ between its before and after snapshots
      const paths = { a: target, b: this.need(refs, this.ref('r', revertId, 'after'), `after revert ${revertId}`) }
      return this.apply(store, refs, { revertId: id, now, target, paths, turnId: undone.turnId, scope: 'redo', redoOf: revertId, force })
    })
  }

  private async apply(
    store: ShadowStore,
    refs: Record<string, string>,
    r: { revertId: string; now: string; target: string; paths: ChangeSelection; turnId: string; scope: RevertScope; redoOf?: string; force?: boolean; conversation?: boolean }
  ): Promise<RevertResult> {
    const { host } = this.core
    const latest = latestRef(host.sessionId, host.events())
    const known = latest ? refs[latest] : undefined
    if (known && !r.force) {
      const wanted = Array.isArray(r.paths) ? new Set(r.paths) : null
      const changed = await store.changes(known, r.now, { within: r.paths, limit: CONFLICT_LIST_MAX })
      const later = pathsOf(changed.files).filter((p) => !wanted || wanted.has(p))
      if (later.length > 0) {
        await store.drop([this.ref('r', r.revertId, 'before')])
        return { status: 'conflict', files: later, patch: await store.patch(known, r.now, later), causes: await conflictCauses(store, host.sessionId, later) }
      }
    }
    const done = !Array.isArray(r.paths) || r.paths.length ? await store.restore(host.sessionId, r.target, r.paths) : { restored: [], deleted: [], skipped: [] }
    await store.snapshot(host.sessionId, this.ref('r', r.revertId, 'after'))
    host.emit({
      type: 'changes_reverted', revertId: r.revertId, turnId: r.turnId, scope: r.scope, ...done,
      ...(r.redoOf ? { redoOf: r.redoOf } : {}), ...(r.conversation ? { conversation: true } : {})
    })
    return { status: 'reverted', revertId: r.revertId, ...done }
  }
}
