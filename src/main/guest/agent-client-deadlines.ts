/**
 * The host-side deadlines of calls to the guest agent (agent-client.ts) and the liveness check run
 * when one passes: the agent is pinged, and one that does not answer in time counts as wedged.
 */
import type { AgentRequestBody } from '../../shared/guest-protocol'

/** Host-side deadline of a non-spawn call (ms); past it the agent is pinged (see agent-client.ts). */
export const CALL_DEADLINE_MS = 10_000
/**
 * How long past a spawn's `timeoutMs` the host waits for its result (ms) before pinging the agent:
 * the agent's TERM→KILL grace (2 s), the output drain and a margin.
 */
export const SPAWN_GRACE_MS = 5_000
/** Deadline of a spawn that sets no `timeoutMs` (ms). */
export const SPAWN_DEFAULT_DEADLINE_MS = 600_000 + SPAWN_GRACE_MS
/**
 * Longest wait (ms) after Stop for an aborted spawn to be reported ended (its process group killed)
 * before the call rejects anyway; usually a few ms, 2 s more for a group that ignores SIGTERM.
 */
export const ABORT_SETTLE_MS = 1_000
/** How long an aborted spawn's `kill` may go unacknowledged before the agent is pinged (ms). */
export const KILL_ACK_MS = 3_000
/** How long the liveness `ping` after a missed deadline may take before the agent counts as wedged (ms). */
export const PING_CHECK_MS = 3_000

/** The host-side deadline of `body` (ms): a spawn's timeout plus {@link SPAWN_GRACE_MS}, else {@link CALL_DEADLINE_MS}. */
export function deadlineOf(body: AgentRequestBody): number {
  if (body.op === 'spawn') return body.timeoutMs !== undefined ? body.timeoutMs + SPAWN_GRACE_MS : SPAWN_DEFAULT_DEADLINE_MS
  return CALL_DEADLINE_MS
}

/**
 * The liveness check after a call missed its deadline: sends a ping through `ping` (given its
 * backstop deadline in ms) and calls `onWedged` with `what` and the missed ping if no answer comes
 * within {@link PING_CHECK_MS}, or `onAlive` when the ping is answered in time. A ping that fails
 * (the connection ended) calls neither. Never throws.
 * @param what which call went unanswered, e.g. "stat got no answer within 10000 ms"
 */
export function checkAlive(ping: (deadlineMs: number) => Promise<unknown>, what: string, onWedged: (what: string) => void, onAlive: () => void): void {
  const timer = setTimeout(() => onWedged(`${what}, nor a ping within ${PING_CHECK_MS} ms`), PING_CHECK_MS)
  timer.unref?.()
  // the ping's own deadline is only a backstop: the timer above decides
  ping(10 * PING_CHECK_MS).then(
    () => {
      clearTimeout(timer)
      onAlive()
    },
    () => clearTimeout(timer)
  )
}
