/**
 * The shell script a guest container's main process runs (container-spec.ts and spare-guests.ts
 * put it in `Cmd`): the first agent, the exit marker the host reads, then an idle stdin reader
 * that keeps the container alive until the host's attach connection closes.
 */

/** Where the agent bundle is mounted inside the guest. */
export const AGENT_IN_GUEST = '/opt/cortex/agent.cjs'

/** Marker the main script prints on stderr when the first agent exits: `cortex-agent-exit:<code>`. */
export const AGENT_EXIT_MARKER = 'cortex-agent-exit:'

/**
 * Main process: run the agent on the attached stdio, report its exit code, then read (and drop) stdin
 * until it closes. Stdin closes when the host's attach connection does (`StdinOnce`): when the
 * process that created the guest exits or is killed, the agent (or, after it died, the idle reader)
 * sees EOF, the main process exits and the container stops, whatever agent an exec restarted. The
 * idle reader is node, not a shell loop: the dead agent left stdin non-blocking, and a shell `read`
 * or `cat` takes the EAGAIN that follows for an end of input.
 */
const IDLE_READER = `exec node -e 'process.stdin.on("data",()=>{}).on("end",()=>process.exit(0)).on("error",()=>process.exit(0))' >/dev/null 2>&1`
/** The main script of a session, checkpoint or setup guest (`sh -c` text; see {@link IDLE_READER} for how it ends). */
export const MAIN_AGENT_SCRIPT = `node ${AGENT_IN_GUEST}; echo "${AGENT_EXIT_MARKER}$?" >&2; ${IDLE_READER}`

/**
 * Main process of a spare guest (spare-guests.ts, ADR 0040): the agent in spare mode (silent until
 * claimed, exit 75 after `ttlMs` unclaimed, which ends the container: it is AutoRemove'd), then as
 * {@link MAIN_AGENT_SCRIPT}: once claimed, the claimer's attach is the stdin whose end stops it.
 */
export function spareAgentScript(ttlMs: number): string {
  return `CORTEX_AGENT_SPARE_TTL_MS=${Math.max(1, Math.round(ttlMs))} node ${AGENT_IN_GUEST}; c=$?; echo "${AGENT_EXIT_MARKER}$c" >&2; [ "$c" = 75 ] && exit 0; ${IDLE_READER}`
}
