/**
 * A warm pool of guests: keeps up to `size` started guests (container running, agent ready) so
 * the next session attaches at once.
 *
 * Design (why it is keyed by repository): the repository is bind-mounted when the container is
 * CREATED, and Docker cannot add a mount to an existing container, so a guest cannot be prepared
 * without knowing its repository. Pre-warming "everything but the mount" (image present, agent
 * bundle, passwd files, a warm Docker connection) still leaves create + start + agent exec on the
 * critical path, which measures ~350–450 ms here: far from the 150 ms target. So the pool prepares
 * complete guests for ONE key — repository + sandbox policy (the uid follows from the repository's
 * owner; image and limits are the provider's) — the repository the user opened last, which is the
 * common case for the next session. A start for another key falls back to a cold start and re-keys
 * the pool to it (guests prepared for the old key are removed).
 *
 * Leaks: pool guests are ordinary labelled guests (dev.cortex.managed=1, a `warm-…` session id), so
 * the start-up orphan sweep removes them after a crash; {@link WarmGuestPool.close} removes every
 * guest the pool still holds or is starting. A taken guest belongs to the session that took it; its
 * session label stays `warm-…` (Docker labels are immutable), so a mid-run sweep must keep the ids
 * of attached guests (reapOrphanGuests' `keep`).
 */
import { randomBytes } from 'node:crypto'
import { raceDeadline } from '../../shared/deadline'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import { DEFAULT_SANDBOX_POLICY } from '../../shared/sandbox'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { Guest, GuestProvider, GuestStartOptions, StoreLease } from './guest'

/** Options of {@link WarmGuestPool}. */
export interface WarmGuestPoolOptions {
  /** Guests kept ready (0 disables the pool: every start is a cold start). */
  size: number
  /** Where the pool logs failed background starts, discarded stale guests and failed removals (default nowhere). */
  logger?: Logger
}

/** How long a pooled guest may take to answer the liveness ping at take time (ms). */
const TAKE_PING_MS = 1000

/** Keeps warm guests for the most recent repository; a {@link GuestProvider} itself. */
export class WarmGuestPool implements GuestProvider {
  private key: string | undefined
  private keyArgs: { repo: string; sandbox: SandboxPolicy } | undefined
  private readonly ready: Array<{ key: string; guest: Guest }> = []
  private readonly filling = new Set<Promise<void>>()
  /** Removals of discarded guests still running: {@link close} waits for them, so none outlives the pool. */
  private readonly discarding = new Set<Promise<void>>()
  private closed = false
  private failedKey: string | undefined
  private readonly log: Logger

  /** @param provider starts the real guests @param opts see {@link WarmGuestPoolOptions} */
  constructor(
    private readonly provider: GuestProvider,
    private readonly opts: WarmGuestPoolOptions
  ) {
    this.log = opts.logger ?? NOOP_LOGGER
  }

  /** Close a guest the pool no longer wants, in the background; a failed removal is logged (the orphan sweep retries it). */
  private discard(guest: Guest, why: string): void {
    this.log.debug(`warm guest discarded: ${why}`, { containerId: guest.id.slice(0, 12) })
    const p: Promise<void> = guest
      .close()
      .catch((err: unknown) => this.log.warn('could not remove a warm guest', { containerId: guest.id.slice(0, 12), ...errorFields(err) }))
      .finally(() => this.discarding.delete(p))
    this.discarding.add(p)
  }

  /** Number of guests ready to be taken now. */
  get readyCount(): number {
    return this.ready.length
  }

  /** Container ids the pool holds (ready, not yet taken). */
  ids(): string[] {
    return this.ready.map((r) => r.guest.id)
  }

  /**
   * Keep `size` guests ready for `repo` under `sandbox` (default workspace-write), starting them in
   * the background; guests ready for another repository or policy are removed. No-op when size is
   * 0 or the pool is closed. Never throws (failed starts are logged; a key whose start failed is
   * not retried until prepared again).
   */
  prepare(repo: string, sandbox: SandboxPolicy = DEFAULT_SANDBOX_POLICY): void {
    if (this.closed || this.opts.size <= 0) return
    const key = `${sandbox}\0${repo}`
    if (key !== this.key) {
      this.key = key
      this.keyArgs = { repo, sandbox }
      this.failedKey = undefined
      for (const r of this.ready.splice(0)) this.discard(r.guest, 'the pool was re-keyed to another repository or policy')
    }
    this.fill()
  }

  /** Resolves once no background start is running (for tests and the benchmark). */
  async settled(): Promise<void> {
    while (this.filling.size) await Promise.allSettled([...this.filling])
  }

  /**
   * A ready guest for `repo` + `sandbox` if the pool has a live one (checked with a ping), else
   * undefined. Taking one starts a replacement in the background. Never rejects.
   */
  async take(repo: string, sandbox: SandboxPolicy = DEFAULT_SANDBOX_POLICY): Promise<Guest | undefined> {
    const key = `${sandbox}\0${repo}`
    for (;;) {
      const i = this.ready.findIndex((r) => r.key === key)
      if (i < 0) return undefined
      const [{ guest }] = this.ready.splice(i, 1) as [{ key: string; guest: Guest }]
      this.fill()
      if (!guest.dead && (await this.alive(guest))) return guest
      this.discard(guest, 'it did not answer the liveness ping')
    }
  }

  /**
   * {@link GuestProvider.start}: a warm guest when one is ready for the repository and policy
   * (progress reports only `ready`), else a cold start through the provider; either way the pool
   * is then prepared for this repository and policy. Rejects like the provider's start.
   */
  async start(opts: GuestStartOptions): Promise<Guest> {
    const sandbox = opts.sandbox ?? DEFAULT_SANDBOX_POLICY
    if (opts.signal?.aborted || opts.oneOff) return this.provider.start(opts)
    const warm = this.opts.size > 0 ? await this.take(opts.repo, sandbox) : undefined
    if (warm) {
      opts.onProgress?.('ready', 'warm guest from the pool')
      this.prepare(opts.repo, sandbox)
      return warm
    }
    const guest = await this.provider.start(opts)
    this.prepare(opts.repo, sandbox)
    return guest
  }

  /** The provider's checkpoint guest lease (warm guests mount no checkpoint store, so the pool has none of its own). */
  checkpointLease(repo: string): StoreLease | undefined {
    return this.provider.checkpointLease?.(repo)
  }

  /** Stop preparing and remove every guest the pool holds or is starting, then close the provider (its checkpoint guests). Idempotent. */
  async close(): Promise<void> {
    this.closed = true
    await this.settled()
    const results = await Promise.allSettled([...this.ready.splice(0).map((r) => r.guest.close()), ...this.discarding, this.provider.close?.()])
    for (const r of results) if (r.status === 'rejected') this.log.warn('could not remove a warm guest at close', errorFields(r.reason))
  }

  private async alive(guest: Guest): Promise<boolean> {
    try {
      const r = await raceDeadline(guest.call({ op: 'ping' }), { ms: TAKE_PING_MS })
      if (r.kind === 'value') return true
      this.log.debug('warm guest ping timed out', { containerId: guest.id.slice(0, 12), ms: TAKE_PING_MS })
      return false
    } catch (err) {
      this.log.debug('warm guest ping failed', { containerId: guest.id.slice(0, 12), ...errorFields(err) })
      return false
    }
  }

  private fill(): void {
    const key = this.key
    const args = this.keyArgs
    if (this.closed || !key || !args || this.failedKey === key) return
    const missing = this.opts.size - this.ready.filter((r) => r.key === key).length - this.filling.size
    for (let i = 0; i < missing; i++) {
      const p: Promise<void> = this.provider
        .start({ sessionId: `warm-${randomBytes(4).toString('hex')}`, repo: args.repo, sandbox: args.sandbox })
        .then(
          (guest) => {
            if (this.closed || this.key !== key) return this.discard(guest, 'it started after the pool closed or moved on')
            this.ready.push({ key, guest })
            this.log.debug('warm guest ready', { containerId: guest.id.slice(0, 12), repo: args.repo, sandbox: args.sandbox })
            return undefined
          },
          (err: unknown) => {
            this.failedKey = key
            this.log.warn('warm pool could not start a guest; not retried until the pool is prepared again', { repo: args.repo, sandbox: args.sandbox, ...errorFields(err) })
          }
        )
        .finally(() => this.filling.delete(p))
      this.filling.add(p)
    }
  }
}
