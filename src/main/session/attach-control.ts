/**
 * The session's guest start as Stop sees it (ADR 0008): Stop cancels a start in progress (the
 * provider removes whatever it created) and the next turn starts a new one when it begins; a guest
 * that is already running is kept. Close aborts a start without asking for another.
 */
import { errorFields, type Logger } from '../../shared/logger-types'
import { abortError } from '../guest/agent-client'
import type { Guest } from '../guest/guest'

/** Tracks the one guest start a session may have in progress. */
export class AttachControl {
  private current: AbortController | null = null
  private reattach = false

  /** A new start: its signal, and `settled` to call once it has resolved or rejected. */
  begin(): { signal: AbortSignal; settled(): void } {
    const abort = new AbortController()
    this.current = abort
    return {
      signal: abort.signal,
      settled: () => {
        if (this.current === abort) this.current = null
      }
    }
  }

  /** Stop: cancel the start in progress, if any; the next turn then starts one ({@link takeReattach}). */
  cancel(): void {
    if (!this.current) return
    this.current.abort()
    this.current = null
    this.reattach = true
  }

  /** Session close: cancel the start in progress, if any, for good. */
  abortForClose(): void {
    this.current?.abort()
    this.current = null
    this.reattach = false
  }

  /** Whether a Stop cancelled a start since the last call (true once). */
  takeReattach(): boolean {
    const r = this.reattach
    this.reattach = false
    return r
  }
}

/**
 * A guest that became ready just as its start was cancelled: remove it in the background and
 * return the AbortError the start rejects with.
 */
export function dropCancelledGuest(guest: Guest, logger: Logger): Error {
  void guest.close().catch((err: unknown) => logger.debug('removing a guest whose start was cancelled failed', { guestId: guest.id, ...errorFields(err) }))
  return abortError('guest start cancelled')
}

/** Whether a start failed because it was cancelled (Stop or close) rather than broken. */
export function isCancelledStart(err: unknown): boolean {
  return (err as Error | null)?.name === 'AbortError'
}
