/**
 * `end_model_processes`: end every process the model's commands started in this guest, including
 * ones that left their process group or session (setsid, double fork, nohup, daemons), when the
 * session switches to a mode without bash. Runs inside the guest (Node 18, built-ins only).
 *
 * Who is whose is read from the process tree in /proc, not from anything a process can change about
 * itself. In the guest's pid namespace:
 * - the model's commands are spawned by this agent (`modelCommand` spawns, spawn.ts): a process
 *   below such a leader is the model's;
 * - a process that escaped (its parent exited) is re-parented to PID 1 (Docker's init); nothing but
 *   the container's main process is started by PID 1 itself, and it started before everything else;
 * - the user's shells, like every `docker exec`, have parent pid 0 (their parent is outside the
 *   namespace); no process inside the guest can make itself one, nor re-parent itself below one.
 * So: a process below a model leader, or whose ancestry reaches PID 1 through anything but the
 * main process (an orphan), is ended; PID 1, the main process, this agent and its ancestors, the
 * host's own spawns (search, checkpoints: below this agent but not below a model leader) and every
 * `docker exec` tree (the user's shells, restarted agents) are spared.
 *
 * Known gaps (docs/adr/0019-mode-switch-ends-model-processes.md): a process the user started from
 * the Shell pane that escaped the shell (setsid, or the shell closed) is an orphan too and is ended;
 * a model process cannot escape this, but it can leave something for the user's shell to run later
 * (a script, ~/.bashrc), which then runs as the user's.
 *
 * Ending: TERM to every such process (and to new ones as they appear) for `graceMs`; then STOP
 * every one until a scan finds all stopped (a stopped process cannot fork), then KILL them. Scanning
 * alone does not always converge: a process that forks its successor and exits at once (a pid
 * hopper) is gone before a scan's signal reaches it, so scans come back empty while it lives, and
 * a parent blocked in vfork (state D) on a stopped child never shows as stopped (both survived,
 * hostile review, ADR 0019). So when some are left after half the kill phase, or pids were
 * allocated over {@link SETTLE_MS} to processes no scan saw: freeze the whole guest at
 * once (`kill(-1, SIGSTOP)`: the kernel signals every process under the task-list lock, and a fork
 * racing it is restarted after the stop), KILL the model's in the still table, CONT the rest
 * (children first; not what was stopped before). The freeze is a last resort because a shell whose
 * foreground job is stopped takes it for a Ctrl-Z.
 */
import { readdirSync, readFileSync } from 'node:fs'
import type { EndModelProcessesRequest, EndModelProcessesResult } from '../shared/guest-protocol'
import { AgentError } from './errors'
import { modelCommandPids } from './spawn'

/** Default TERM → KILL grace (ms). */
export const END_GRACE_MS = 1000
/** Largest grace a request may ask for (ms). */
export const MAX_END_GRACE_MS = 10_000
/** How long the STOP/KILL phase may take after the grace (ms); the host's deadline adds a margin. */
export const END_KILL_PHASE_MS = 2000
/** Time between scans of /proc while processes remain (ms). */
const POLL_MS = 25

/** One process from /proc/<pid>/stat. */
export interface ProcEntry {
  pid: number
  ppid: number
  /** One-letter state (R, S, D, T, t, Z, X, …). */
  state: string
  /** Start time in clock ticks since boot (field 22): with the pid it names one process over time. */
  start: number
}

/** Parse /proc/<pid>/stat text (the command name may hold spaces and parentheses). Undefined when malformed. */
export function parseStat(text: string): ProcEntry | undefined {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return undefined
  const pid = Number(text.slice(0, open).trim())
  const f = text.slice(close + 2).split(' ')
  const ppid = Number(f[1])
  const start = Number(f[19])
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || !Number.isFinite(start) || !f[0]) return undefined
  return { pid, ppid, state: f[0], start }
}

/** Every process visible in /proc now, by pid (threads are not listed; vanished ones are skipped). */
export function scanProcs(): Map<number, ProcEntry> {
  const procs = new Map<number, ProcEntry>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const p = parseStat(readFileSync(`/proc/${name}/stat`, 'utf8'))
      if (p) procs.set(p.pid, p)
    } catch {
      // gone between readdir and read
    }
  }
  return procs
}

/**
 * The model's live processes in `procs` (see the module comment), zombies excluded.
 * @param self this agent's pid @param leaders leader pids of running `modelCommand` spawns
 */
export function modelProcesses(procs: ReadonlyMap<number, ProcEntry>, self: number, leaders: ReadonlySet<number>): ProcEntry[] {
  // the container's main process: PID 1's earliest-started child (init starts it; all else is later)
  let main: ProcEntry | undefined
  for (const p of procs.values()) {
    if (p.ppid === 1 && p.pid !== 1 && (!main || p.start < main.start || (p.start === main.start && p.pid < main.pid))) main = p
  }
  const spared = new Set<number>([1, self])
  if (main) spared.add(main.pid)
  for (let p = procs.get(self); p && p.ppid > 0 && !spared.has(p.ppid); p = procs.get(p.ppid)) spared.add(p.ppid)
  const verdict = new Map<number, boolean>()
  const isModel = (start: ProcEntry): boolean => {
    const path: number[] = []
    let result = false
    for (let p: ProcEntry | undefined = start; ; p = procs.get(p.ppid)) {
      if (!p) {
        result = true // its parent exited between reads: it is being re-parented to init, an orphan
        break
      }
      const known = verdict.get(p.pid)
      if (known !== undefined) {
        result = known
        break
      }
      path.push(p.pid)
      if (leaders.has(p.pid)) {
        result = true
        break
      }
      if (spared.has(p.pid) || p.ppid === 0) break // agent helpers, main, a docker exec tree
      if (p.ppid === 1) {
        result = true // re-parented to init: an orphan
        break
      }
      if (path.length > procs.size) break // a cycle would mean a torn scan
    }
    for (const pid of path) verdict.set(pid, result)
    return result
  }
  const out: ProcEntry[] = []
  for (const p of procs.values()) {
    if (spared.has(p.pid) || p.state === 'Z' || p.state === 'X') continue
    if (isModel(p)) out.push(p)
  }
  return out
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig)
  } catch {
    // ESRCH: gone already
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const key = (p: ProcEntry): string => `${p.pid}@${p.start}`

/** Handle `end_model_processes` (see the module comment). Rejects BAD_REQUEST for a bad `graceMs`. */
export async function endModelProcessesOp(req: EndModelProcessesRequest): Promise<EndModelProcessesResult> {
  if (req.graceMs !== undefined && (typeof req.graceMs !== 'number' || !(req.graceMs >= 0) || req.graceMs > MAX_END_GRACE_MS)) {
    throw new AgentError('BAD_REQUEST', `graceMs must be a number from 0 to ${MAX_END_GRACE_MS}`)
  }
  const grace = req.graceMs ?? END_GRACE_MS
  const current = (): ProcEntry[] => modelProcesses(scanProcs(), process.pid, modelCommandPids())
  // every process seen, and whether it was a tree's top when first seen: those are what is counted
  // ("ended 2 background processes"), not each `sleep` a loop forked while it was being ended
  const seen = new Map<string, boolean>()
  const note = (live: ProcEntry[]): void => {
    const pids = new Set(live.map((p) => p.pid))
    for (const p of live) if (!seen.has(key(p))) seen.set(key(p), !pids.has(p.ppid))
  }
  const ended = (live: ProcEntry[]): number => {
    const left = new Set(live.map(key))
    let n = 0
    for (const [k, top] of seen) if (top && !left.has(k)) n += 1
    return n
  }
  // TERM: a dev server or watcher may shut down cleanly; new children get it too as they appear.
  // An empty scan ends this phase only: a pid hopper can be missed by every scan.
  const termUntil = Date.now() + grace
  for (;;) {
    const live = current()
    for (const p of live) if (!seen.has(key(p))) signal(p.pid, 'SIGTERM')
    note(live)
    if (live.length === 0 || Date.now() >= termUntil) break
    await sleep(POLL_MS)
  }
  // STOP each until all are stopped (a stopped process cannot fork), then KILL them: enough for
  // everything but a pid hopper or a process stuck in uninterruptible sleep
  const killUntil = Date.now() + END_KILL_PHASE_MS
  const scanUntil = Date.now() + END_KILL_PHASE_MS / 2
  let live = current()
  while (live.length > 0 && Date.now() < scanUntil) {
    note(live)
    if (live.every((p) => p.state === 'T' || p.state === 't')) for (const p of live) signal(p.pid, 'SIGKILL')
    else for (const p of live) signal(p.pid, 'SIGSTOP')
    await sleep(POLL_MS / 5)
    live = current()
  }
  // still some left, or pids allocated to processes no scan saw (a hopper outrunning the scans, or
  // a short-lived command of the user's): freeze the whole guest, KILL the model's, thaw the rest;
  // again while some are left (a KILLed process in uninterruptible sleep dies when it wakes)
  if (live.length === 0 && !(await unexplainedPids())) return { ended: ended(live), remaining: 0 }
  live = freezeAndKill(note)
  while (live.length > 0 && Date.now() < killUntil) {
    await sleep(POLL_MS / 5)
    live = current()
    if (live.some((p) => p.state !== 'D')) live = freezeAndKill(note)
  }
  return { ended: ended(live), remaining: live.length }
}

/** Time to watch the last allocated pid for movement (ms). */
const SETTLE_MS = 100

/** The pid namespace's last allocated pid (/proc/loadavg, 5th field); NaN when unreadable. */
function lastPid(): number {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').trim().split(/\s+/)[4])
  } catch {
    return Number.NaN
  }
}

/**
 * Whether something may be forking where no scan sees it (a pid hopper): over {@link SETTLE_MS},
 * scans every few ms; true when one finds a model process, or a pid allocated in the window never
 * showed in any scan (a process that lived less than a scan period: a hopper's generation, or a
 * short-lived command of the user's; or a thread), or the pids cannot be read or wrapped.
 */
async function unexplainedPids(): Promise<boolean> {
  const first = lastPid()
  const seen = new Set<number>()
  const until = Date.now() + SETTLE_MS
  let last: number
  for (;;) {
    last = lastPid() // pids allocated after this read are the next scan's, not counted
    const procs = scanProcs()
    if (modelProcesses(procs, process.pid, modelCommandPids()).length > 0) return true
    for (const pid of procs.keys()) seen.add(pid)
    if (Date.now() >= until) break
    await sleep(SETTLE_MS / 10)
  }
  if (!Number.isFinite(first) || !Number.isFinite(last) || last < first) return true
  for (let pid = first + 1; pid <= last; pid++) if (!seen.has(pid)) return true
  return false
}

/** Number of ancestors of `p` in `procs` (bounded by the table's size, in case of a torn read). */
function depth(procs: ReadonlyMap<number, ProcEntry>, p: ProcEntry): number {
  let n = 0
  for (let q = procs.get(p.ppid); q && n <= procs.size; q = procs.get(q.ppid)) n += 1
  return n
}

/**
 * STOP every process of the guest this agent may signal (not PID 1, not itself) in one `kill(-1)`,
 * KILL the model's processes in the frozen table, CONT every other one that was not already
 * stopped before. Synchronous, so nothing of this agent runs in between.
 * @param note records the processes found (for the count)
 * @returns the model's processes killed (they may take a moment to vanish)
 */
function freezeAndKill(note: (live: ProcEntry[]) => void): ProcEntry[] {
  const stoppedBefore = new Set([...scanProcs().values()].filter((p) => p.state === 'T' || p.state === 't').map(key))
  let frozen = new Map<number, ProcEntry>()
  let model: ProcEntry[] = []
  signal(-1, 'SIGSTOP')
  try {
    frozen = scanProcs()
    model = modelProcesses(frozen, process.pid, modelCommandPids())
    for (const p of model) signal(p.pid, 'SIGKILL')
    note(model)
  } finally {
    // children before parents: a shell that wakes first would see its foreground job stopped and
    // take it for a suspension (Ctrl-Z); a child already running again is not reported as stopped
    const killed = new Set(model.map((p) => p.pid))
    const thaw = [...frozen.values()].filter((p) => p.pid !== 1 && p.pid !== process.pid && !killed.has(p.pid) && !stoppedBefore.has(key(p)))
    for (const p of thaw.sort((a, b) => depth(frozen, b) - depth(frozen, a))) signal(p.pid, 'SIGCONT')
  }
  return model
}
