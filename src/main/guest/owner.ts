/**
 * Which process owns a guest: every container carries an owner label `host/boot-id/pid`, so the
 * orphan sweep removes only guests whose owning process is gone on this machine, never the live
 * guests of another Cortex process (a second CLI, the desktop app) sharing the daemon.
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

/** This process's owner tag: `hostname/boot-id/pid`. */
export function ownerTag(pid: number = process.pid): string {
  return `${hostname()}/${currentBootId()}/${pid}`
}

/**
 * Whether the owner named by `tag` may still be running. An absent or malformed tag, or one from
 * another host or boot, is judged by the caller's other rules (returns false only when this
 * machine can tell the owner is gone: same host and boot, and no process with that pid).
 */
export function ownerAlive(tag: string | undefined): boolean {
  if (!tag) return false
  const [host, boot, pidText] = tag.split('/')
  const pid = Number(pidText)
  if (host !== hostname() || boot !== currentBootId()) return true // not ours to judge
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
