/**
 * The guest of one session: attached eagerly at open and awaited by tools (ADR 0002), replaced at
 * the next tool call when it dies, restarted under a new sandbox policy (ADR 0004), cancelled by
 * Stop while it starts (ADR 0008) and removed at close within bounds.
 */
import { toCortexError } from '../../shared/errors'
import type { SessionEvent } from '../../shared/events'
import { errorFields, type Logger } from '../../shared/logger-types'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { Guest, GuestProvider } from '../guest/guest'
import { AttachControl, dropCancelledGuest, isCancelledStart } from './attach-control'
import { raceDeadline } from '../../shared/deadline'

/** `p`'s value, or undefined when it has not settled within `ms` (a rejection passes on). */
export async function settleWithin<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  const r = await raceDeadline(p, { ms })
  return r.kind === 'value' ? r.value : undefined
}

/** What a {@link SessionGuest} needs from its session. */
export interface SessionGuestDeps {
  sessionId: string
  /** Absolute host path of the repository. */
  repo: string
  guests: GuestProvider
  /** The session's sandbox policy now. */
  getSandbox(): SandboxPolicy
  /** The session's emit (guest_status events). */
  emit(e: SessionEvent): void
  /** True once the session is closed: a guest dying then is not reported. */
  isClosed(): boolean
  /** Called as each attach begins, with its policy (the session starts its checkpoint guest then, ADR 0010). */
  onAttaching?(sandbox: SandboxPolicy): void
  logger: Logger
}

/** The attached (or attaching) guest of one session. */
export class SessionGuest {
  private guest: Promise<Guest> | null = null
  /** Attach promises that have resolved (the guest is up). */
  private readonly settled = new WeakSet<Promise<Guest>>()
  private readonly control = new AttachControl()

  /** @param deps see {@link SessionGuestDeps} */
  constructor(private readonly deps: SessionGuestDeps) {}

  /** The attached or attaching guest, or null when none is (never started, failed, died, cancelled). */
  get current(): Promise<Guest> | null {
    return this.guest
  }

  /** The guest when it is attached and up now (its start has finished), else null (none, or still starting). */
  get ready(): Promise<Guest> | null {
    return this.guest && this.settled.has(this.guest) ? this.guest : null
  }

  /** Start attaching a guest if none is attached or starting; resolves with it. Errors are CortexErrors (an AbortError after Stop). */
  ensure(): Promise<Guest> {
    if (!this.guest) {
      this.guest = this.attach()
      this.watch(this.guest)
    }
    return this.guest
  }

  /** Stop: cancel a start in progress (a started guest is kept); the next start is a new one. */
  stop(): void {
    if (this.control.cancel()) this.guest = null
  }

  /** A turn begins: when a Stop cancelled a start, start a new one now, overlapping the first model request (ADR 0002). */
  turnStarting(): void {
    if (this.control.takeReattach()) this.ensure().catch(() => undefined) // failures are reported by watch()
  }

  /** The sandbox policy changed: close the old guest first (two guests of one session never run at once), then attach anew in the background. */
  restart(): void {
    const old = this.guest
    this.guest = (async () => {
      // an old guest that never started has nothing to close (its failure was reported then)
      const g = old ? await old.catch(() => null) : null
      if (g) await g.close().catch((err: unknown) => this.deps.logger.debug('closing the guest of the old sandbox policy failed', { guestId: g.id, ...errorFields(err) }))
      return this.attach()
    })()
    this.watch(this.guest)
  }

  /** Session close, first step: abort a start in progress (it removes what it created). */
  abortStart(): void {
    this.control.abortForClose()
  }

  /**
   * Session close, last step: remove the guest. One still starting is waited for at most `waitMs`
   * (then removed once it has started, in the background); emits `guest_status: stopped` when a
   * guest was removed. Never rejects.
   */
  async remove(waitMs: number): Promise<void> {
    const guest = this.guest
    this.guest = null
    if (!guest) return
    // a guest that never started has nothing to remove (its failure was reported then); one still
    // starting is removed once it has started (and stops by itself if this process exits first)
    const g = await settleWithin(guest.catch(() => null), waitMs)
    if (g === undefined) void guest.then((late) => late.close()).catch((err: unknown) => this.deps.logger.debug('a guest that finished starting after close could not be removed', errorFields(err)))
    if (g) {
      // a close that throws synchronously is caught too (Promise.resolve().then)
      await Promise.resolve()
        .then(() => g.close())
        .catch((err: unknown) => this.deps.logger.warn('could not remove the guest at close; the orphan sweep will', { guestId: g.id, ...errorFields(err) }))
      this.deps.emit({ type: 'guest_status', state: 'stopped' })
    }
  }

  private attach(): Promise<Guest> {
    const sandbox = this.deps.getSandbox()
    this.deps.onAttaching?.(sandbox)
    // begins once a start cancelled before it has removed what it made (they share the git guard's placeholders)
    const { promise, signal } = this.control.begin((signal) =>
      this.deps.guests.start({
        sessionId: this.deps.sessionId,
        repo: this.deps.repo,
        sandbox,
        signal,
        // the session reports `ready` itself, with the container id and policy
        onProgress: (state, detail) => {
          if (state !== 'ready') this.deps.emit({ type: 'guest_status', state, ...(detail ? { detail } : {}) })
        }
      })
    )
    return promise.then((g) => {
      if (signal.aborted) throw dropCancelledGuest(g, this.deps.logger) // ready just as Stop came
      this.deps.emit({ type: 'guest_status', state: 'ready', detail: `${g.id.slice(0, 12)} · ${sandbox}` })
      // a guest that died (container killed, daemon restarted) is replaced at the next tool call
      g.onDead?.((err) => {
        if (this.deps.isClosed()) return
        void this.guest?.then((current) => {
          if (current !== g) return
          this.guest = null
          this.deps.logger.warn('guest died', { guestId: g.id, ...errorFields(err) })
          void g.close().catch((closeErr: unknown) => this.deps.logger.debug('removing the dead guest failed', { guestId: g.id, ...errorFields(closeErr) }))
          this.deps.emit({ type: 'guest_status', state: 'error', detail: `${err.message}; a new guest starts at the next tool call` })
        })
      })
      return g
    })
  }

  /** On failure, report it and forget the attempt so the next call retries; a cancelled start is reported as stopped. */
  private watch(attaching: Promise<Guest>): void {
    attaching.then(() => this.settled.add(attaching), (err: unknown) => {
      if (this.guest === attaching) this.guest = null
      if (isCancelledStart(err)) {
        this.deps.logger.info('guest start cancelled by Stop', { repo: this.deps.repo })
        if (!this.deps.isClosed()) this.deps.emit({ type: 'guest_status', state: 'stopped', detail: 'guest start cancelled by Stop; a new guest starts with the next turn' })
        return
      }
      this.deps.logger.error('guest start failed', { repo: this.deps.repo, sandbox: this.deps.getSandbox(), ...errorFields(err) })
      this.deps.emit({ type: 'guest_status', state: 'error', detail: toCortexError(err).message })
    })
  }
}
