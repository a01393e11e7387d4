/**
 * Mode switches as seen by calls already dispatched (ADR 0019): a call that waits — for its
 * approval, for the guest to start, for the turn-start snapshot — is checked again after every wait,
 * against the mode in force then AND every mode switched to since it was dispatched, so a switch to
 * Plan or Ask (and back) while it waited means it is not run. The session reports each switch here
 * synchronously, before `mode_changed` is emitted, so no call runs after that event unless its
 * tool is allowed in the new mode.
 */
import { isToolAllowed, offeredTools, type ExtraTool, type Mode, type ModeLock } from '../../shared/modes'

/** The mode and lock a switch put in force (the lock is released by a switch, so usually null). */
export interface ModeSwitchState {
  mode: Mode
  lock: ModeLock | null
}

/** The mode, lock, goal and extra tools in force now, as a watched call checks them. */
export interface ModeNow {
  mode: Mode
  lock?: ModeLock | null
  goalActive?: boolean
  /** Tools beyond the catalog (harness/turn-tools.ts). */
  extras?: readonly ExtraTool[]
}

/** One dispatched call's view of the switches since it was dispatched; see {@link ModeWatch.watch}. */
export interface CallModeCheck {
  /**
   * Why the call must not run (the tool result, less its `Error: ` prefix) when a switch since
   * dispatch (or the mode and lock in force now, see `current` of {@link ModeWatch.watch}) withholds
   * its tool; undefined when it may run.
   * @param waited what the call was waiting for, for the model ("its approval", "the guest")
   */
  refusal(waited: string): string | undefined
  /** Stop watching (always call it once the call ran or was refused). */
  close(): void
}

/** A listener told of a switch that withholds the watched call's tool. */
export type ForbiddenListener = (state: ModeSwitchState) => void

/** See the module comment. One per session; shared by its turns. */
export class ModeWatch {
  private readonly calls = new Set<(state: ModeSwitchState) => void>()

  /**
   * Report a switch the session has just made (its mode and lock already changed): every watched
   * call whose tool `state` withholds is marked and its `onForbidden` runs, synchronously.
   */
  switched(state: ModeSwitchState): void {
    for (const notify of [...this.calls]) notify(state)
  }

  /**
   * Watch call `tool` from its dispatch until {@link CallModeCheck.close}.
   * @param current the mode, lock and goal in force now (a lock can also be set without a switch)
   * @param onForbidden run once, at the first switch that withholds `tool` (e.g. to withdraw its approval card)
   */
  watch(tool: string, current: () => ModeNow, onForbidden?: ForbiddenListener): CallModeCheck {
    let forbiddenBy: ModeSwitchState | undefined
    const notify = (state: ModeSwitchState): void => {
      // a switch changes no goal: goal_done stays as allowed as the goal makes it
      if (forbiddenBy || isToolAllowed(state.mode, tool, state.lock, current().goalActive, current().extras)) return
      forbiddenBy = state
      onForbidden?.(state)
    }
    this.calls.add(notify)
    return {
      refusal: (waited) => {
        const now = current()
        if (forbiddenBy) return switchedRefusal(tool, forbiddenBy.mode, waited, now)
        if (!isToolAllowed(now.mode, tool, now.lock, now.goalActive, now.extras)) return switchedRefusal(tool, now.mode, waited, now)
        return undefined
      },
      close: () => {
        this.calls.delete(notify)
      }
    }
  }
}

/** The user-facing reason a switch to `mode` withdrew a waiting call: shown on its approval card and in the CLI. */
export function switchedReason(mode: Mode): string {
  return `the user switched to ${mode} mode; the call was not run`
}

/** Why a call is refused (the tool result less `Error: `) because the user switched to `mode` while it waited for `waited`. */
function switchedRefusal(tool: string, mode: Mode, waited: string, now: ModeNow): string {
  const offered = offeredTools(now.mode, now.lock, now.goalActive, now.extras).join(', ')
  return `the user switched to ${mode} mode while this ${tool} call waited for ${waited}; it was not run. Tools available now: ${offered}.`
}
