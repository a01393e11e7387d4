/**
 * A switch to a mode without bash ends what the model left running: the guest agent's
 * `end_model_processes` op (src/guest-agent/end-processes.ts) ends every process the model's
 * commands started — background jobs, setsid/nohup/double-fork escapes, daemons — while the agent,
 * the user's shells and the host's own guest calls live on. Plan and Spec promise "no mutation"
 * until the user decides; a dev server or a watcher loop writing the repository would break that.
 * Stop alone never does this (ADR 0008: dev servers outlive a turn in Agent mode). ADR 0019.
 */
import type { EndModelProcessesResult } from '../../shared/guest-protocol'
import { MODE_TOOLS, type Mode } from '../../shared/modes'
import type { Guest } from '../guest/guest'

/** TERM → KILL grace asked of the guest (ms). */
export const MODE_SWITCH_GRACE_MS = 1000
/**
 * Host-side deadline of the op (ms): the grace, the agent's 2 s STOP/KILL phase and a margin. Past
 * it the agent is pinged (and replaced when wedged, agent-client.ts).
 */
export const MODE_SWITCH_END_DEADLINE_MS = MODE_SWITCH_GRACE_MS + 2000 + 3000

/** Whether switching `from` → `to` must end the model's processes: `from` offers bash and `to` does not. */
export function switchEndsModelProcesses(from: Mode, to: Mode): boolean {
  return MODE_TOOLS[from].includes('bash') && !MODE_TOOLS[to].includes('bash')
}

/** What a mode switch reports about the processes it ended (fields of `mode_changed`). */
export interface EndedProcesses {
  /** Processes ended (absent when none were found or the guest could not be asked). */
  endedProcesses?: number
  /** Why they could not all be ended (some survived the deadline, the guest failed, Stop). */
  endError?: string
}

/**
 * End the model's processes in `guest`.
 * @param signal Stop: the wait ends at once (the guest finishes its bounded work on its own)
 * @returns counts for `mode_changed`; never rejects (a failure is reported in `endError`)
 */
export async function endModelProcesses(guest: Guest, signal?: AbortSignal): Promise<EndedProcesses> {
  try {
    const r = (await guest.call({ op: 'end_model_processes', graceMs: MODE_SWITCH_GRACE_MS }, { signal, deadlineMs: MODE_SWITCH_END_DEADLINE_MS })) as EndModelProcessesResult
    const ended = r.ended > 0 ? { endedProcesses: r.ended } : {}
    return r.remaining > 0 ? { ...ended, endError: `${r.remaining} process${r.remaining === 1 ? '' : 'es'} still running after ${MODE_SWITCH_GRACE_MS + 2000} ms` } : ended
  } catch (err) {
    if (signal?.aborted) return { endError: 'stopped before the background processes were confirmed ended' }
    return { endError: `background processes could not be ended: ${err instanceof Error ? err.message : String(err)}` }
  }
}
