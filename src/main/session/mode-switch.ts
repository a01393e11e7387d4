/**
 * A session's mode switches, reported in order: a switch that takes bash away first ends the
 * model's processes in the guest (harness/mode-processes.ts), then emits `mode_changed` with how
 * many it ended; a later switch waits for that report so the events keep the order of the ops. The
 * session changes its mode at once (the next tool call is checked against it); only the report waits.
 * Calls already dispatched hear of the switch at once too, before `mode_changed` ({@link ModeWatch}):
 * one waiting for its approval, the guest or the turn-start snapshot then does not run (ADR 0019).
 */
import type { SessionEvent } from '../../shared/events'
import type { Logger } from '../../shared/logger-types'
import type { Mode } from '../../shared/modes'
import type { Guest } from '../guest/guest'
import { endModelProcesses, switchEndsModelProcesses } from '../harness/mode-processes'
import { ModeWatch } from '../harness/mode-watch'

/** What {@link ModeSwitches} needs from its session. */
export interface ModeSwitchDeps {
  emit(event: SessionEvent): void
  /** The attached or attaching guest, or null (session-guest.ts `current`). */
  currentGuest(): Promise<Guest> | null
  logger: Logger
}

/** The attached guest, or null when none is attached yet (a guest still starting runs nothing of the model's). */
async function attachedGuest(current: Promise<Guest> | null): Promise<Guest | null> {
  if (!current) return null
  const pending = Symbol('pending')
  // an already settled promise wins the race: its reaction was queued first
  const g = await Promise.race([current, Promise.resolve(pending)]).catch(() => null)
  return g === pending || g === null || g.dead ? null : g
}

/** See the module comment. */
export class ModeSwitches {
  /** The switches as dispatched calls see them: passed to every turn (`TurnDeps.modeWatch`). */
  readonly calls = new ModeWatch()
  private chain: Promise<void> = Promise.resolve()
  private stop = new AbortController()

  /** @param deps see {@link ModeSwitchDeps} */
  constructor(private readonly deps: ModeSwitchDeps) {}

  /**
   * Report a switch `from` → `to` that the session has already made: resolves once `mode_changed`
   * is emitted (after the model's processes are ended when `to` takes bash away). Never rejects.
   * Dispatched calls whose tool `to` withholds are refused (and their approval cards withdrawn) before this returns.
   */
  switched(from: Mode, to: Mode): Promise<void> {
    this.calls.switched({ mode: to, lock: null }) // a switch releases any lock (harness/mode-locks.ts)
    const signal = this.stop.signal
    const run = async (): Promise<void> => {
      const guest = switchEndsModelProcesses(from, to) ? await attachedGuest(this.deps.currentGuest()) : null
      const ended = guest ? await endModelProcesses(guest, signal) : {}
      if (ended.endedProcesses || ended.endError) this.deps.logger.info('mode switch ended background processes', { from, to, ...ended })
      this.deps.emit({ type: 'mode_changed', mode: to, ...ended })
    }
    const done = this.chain.then(run).catch((err: unknown) => this.deps.logger.error('reporting a mode switch failed', { to, message: String(err) }))
    this.chain = done
    return done
  }

  /** Stop: a switch waiting on the guest reports at once (the guest finishes its bounded work alone). */
  abort(): void {
    this.stop.abort()
    this.stop = new AbortController()
  }
}
