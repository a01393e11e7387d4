/**
 * Checkpoint guests (ADR 0010): one container per repository that mounts the repository and its
 * checkpoint store and runs the same guest agent, in which ONLY the host's store operations run
 * (snapshots, diffs, restores) — no model command, no shell, no network. Session guests do not
 * mount the store at all, so a model's commands can neither forge nor read any session's snapshots.
 *
 * Shared per repository: sessions take a {@link StoreLease}; the guest starts at the first
 * operation, is restarted when it died, is removed when the last lease of its repository is
 * released, and is removed earlier after {@link CHECKPOINT_GUEST_IDLE_MS} without an operation (the
 * next operation starts a new one). A start is shared by every waiter and never cancelled by one
 * waiter's Stop (each waiter stops waiting instead); the start itself has the provider's deadlines.
 * A session may start it early (SessionCheckpoints.warm, at its guest's attach); releasing the
 * repository's last lease, or closing, while it starts aborts that start (nothing is left behind).
 */
import { CortexError } from '../../shared/errors'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import { raceAbort } from './abortable'
import type { Guest, StoreLease } from './guest'

export type { StoreLease } from './guest'

/** A checkpoint guest with no store operation for this long (ms) is removed; the next operation starts one. */
export const CHECKPOINT_GUEST_IDLE_MS = 10 * 60_000

interface Entry {
  holders: number
  guest: Promise<Guest> | null
  idle: NodeJS.Timeout | undefined
  /** Aborts the start in progress (null once it settled). */
  starting: AbortController | null
}

/** The per-repository registry of checkpoint guests; see the module comment. */
export class CheckpointGuests {
  private readonly entries = new Map<string, Entry>()
  private readonly closing = new Set<Promise<void>>()
  private closed = false
  private readonly log: Logger

  /**
   * @param startGuest starts the checkpoint guest of `repo` (absolute real path); rejects with a CortexError,
   *   or an AbortError once `signal` aborted (having removed what it created)
   * @param opts `idleMs` (default {@link CHECKPOINT_GUEST_IDLE_MS}), `logger`
   */
  constructor(
    private readonly startGuest: (repo: string, signal: AbortSignal) => Promise<Guest>,
    private readonly opts: { idleMs?: number; logger?: Logger } = {}
  ) {
    this.log = opts.logger ?? NOOP_LOGGER
  }

  /** Take a lease on the checkpoint guest of `repo` (nothing starts until {@link StoreLease.guest}). */
  lease(repo: string): StoreLease {
    let entry = this.entries.get(repo)
    if (!entry) {
      entry = { holders: 0, guest: null, idle: undefined, starting: null }
      this.entries.set(repo, entry)
    }
    entry.holders += 1
    const e = entry
    let released = false
    return {
      guest: (signal) => raceAbort(this.guestOf(repo, e), signal),
      release: async () => {
        if (released) return
        released = true
        e.holders -= 1
        if (e.holders > 0 || this.entries.get(repo) !== e) return
        this.entries.delete(repo)
        await this.drop(e, 'its last session closed')
      }
    }
  }

  /** Remove every checkpoint guest; later leases get no guest (their `guest()` rejects). Idempotent. */
  async close(): Promise<void> {
    this.closed = true
    const all = [...this.entries.values()]
    this.entries.clear()
    await Promise.all([...all.map((e) => this.drop(e, 'the provider closed')), ...this.closing])
  }

  private async guestOf(repo: string, e: Entry): Promise<Guest> {
    const check = (): void => {
      if (this.closed || this.entries.get(repo) !== e) throw new CortexError('guest_failed', 'the checkpoint guest of this repository was closed')
    }
    check()
    this.touch(repo, e)
    if (e.guest) {
      const p = e.guest
      const g = await p // a failed start fails its waiters; the next operation starts anew
      check()
      if (!g.dead) return g
      if (e.guest === p) {
        e.guest = null
        void this.closeGuest(g, 'it died')
      }
    }
    e.guest ??= this.begin(repo, e)
    return e.guest
  }

  private begin(repo: string, e: Entry): Promise<Guest> {
    const ac = new AbortController()
    e.starting = ac
    const p = this.startGuest(repo, ac.signal)
    const settled = (): void => {
      if (e.starting === ac) e.starting = null
    }
    p.then(
      (g) => {
        settled()
        // released or closed while starting: nobody will use it
        if (this.entries.get(repo) !== e || this.closed || e.guest !== p) void this.closeGuest(g, 'it started after its last session closed')
      },
      (err: unknown) => {
        settled()
        if (e.guest === p) e.guest = null
        if (ac.signal.aborted) this.log.debug('checkpoint guest start aborted: its last session closed', { repo })
        else this.log.warn('checkpoint guest start failed', { repo, ...errorFields(err) })
      }
    )
    return p
  }

  /** (Re)arm the idle timer of `e`: no operation for idleMs removes its guest (the lease stays). */
  private touch(repo: string, e: Entry): void {
    clearTimeout(e.idle)
    e.idle = setTimeout(() => {
      if (this.entries.get(repo) !== e || !e.guest) return
      const g = e.guest
      e.guest = null
      void g.then((x) => this.closeGuest(x, 'idle'), () => undefined)
    }, this.opts.idleMs ?? CHECKPOINT_GUEST_IDLE_MS)
    e.idle.unref()
  }

  private async drop(e: Entry, why: string): Promise<void> {
    clearTimeout(e.idle)
    const p = e.guest
    e.guest = null
    // a start in progress (an early one, before any operation) is cut short: it removes what it made
    e.starting?.abort()
    e.starting = null
    const g = p ? await p.catch(() => null) : null
    if (g) await this.closeGuest(g, why)
  }

  private closeGuest(g: Guest, why: string): Promise<void> {
    const p: Promise<void> = g
      .close()
      .then(() => this.log.debug(`checkpoint guest removed: ${why}`, { containerId: g.id.slice(0, 12) }))
      .catch((err: unknown) => this.log.warn('could not remove a checkpoint guest; the orphan sweep will', { containerId: g.id.slice(0, 12), ...errorFields(err) }))
      .finally(() => this.closing.delete(p))
    this.closing.add(p)
    return p
  }
}
