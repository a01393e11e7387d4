/**
 * Which process owns a guest: every container carries an owner label `host/boot-id/pid/start`
 * (`start`: the process's start time in clock ticks since boot, /proc/PID/stat field 22), so the
 * orphan sweep removes only guests whose owning process is gone on this machine, never the live
 * guests of another Cortex process (a second CLI, the desktop app) sharing the daemon — and a pid
 * reused by an unrelated process since does not keep a dead owner's guests alive forever.
 */
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'

/** Label carrying the owner tag. */
export const LABEL_OWNER = 'dev.cortex.owner'

let bootId: string | undefined
function currentBootId(): string {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    } catch {
      bootId = 'unknown' // no /proc (not Linux): owners are then judged alive, never wrongly reaped
    }
  }
  return bootId
}

/** Start time of process `pid` (clock ticks since boot, /proc/PID/stat field 22), or undefined when it cannot be read. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // fields after the command name (which may hold spaces and parentheses): state is field 3
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3]
    return start && /^\d+$/.test(start) ? start : undefined
  } catch {
    return undefined
  }
}

/** The owner tag of process `pid` (default this one): `hostname/boot-id/pid/start`, or `hostname/boot-id/pid` without /proc. */
export function ownerTag(pid: number = process.pid): string {
  const start = processStart(pid)
  return `${hostname()}/${currentBootId()}/${pid}${start ? `/${start}` : ''}`
}

/**
 * Whether the owner named by `tag` may still be running. An absent or malformed tag, or one from
 * another host or boot, is judged by the caller's other rules (returns false only when this
 * machine can tell the owner is gone: same host and boot, and no process with that pid — or, when
 * the tag records a start time, no process with that pid started then: a reused pid is not the owner).
 */
export function ownerAlive(tag: string | undefined): boolean {
  if (!tag) return false
  const [host, boot, pidText, start] = tag.split('/')
  const pid = Number(pidText)
  if (host !== hostname() || boot !== currentBootId()) return true // not ours to judge
  if (!Number.isInteger(pid) || pid <= 0) return false
  if (start !== undefined) {
    const now = processStart(pid)
    if (now !== undefined) return now === start
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
