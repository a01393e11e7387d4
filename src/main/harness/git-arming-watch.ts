/**
 * The turn's guard over git-arming.ts: a baseline (the state the session's last complete check left,
 * or a scan now), a serialised check (after each writing call, periodically, at the turn's end), and
 * the running totals the model's notes and the user's warning are made from.
 */
import { disarmGitdirs, scanGitdirs, SCAN_DEADLINE_MS, type Disarmed, type GitdirScan } from './git-arming'

/** One turn's guard: the baseline, and a serialised check after each call and at the turn's end. */
export interface GitArmingWatch {
  /**
   * Scan now and disarm what changed since the baseline; `signal` cuts the walk short, `deadlineMs`
   * bounds it (default the watch's).
   * @returns what this check renamed or could not, and whether its walk was incomplete
   */
  check(signal?: AbortSignal, deadlineMs?: number): Promise<Disarmed & { incomplete: boolean }>
  /** Everything disarmed or failed during the turn so far, and whether any walk was incomplete. */
  summary(): Disarmed & { incomplete: boolean }
  /** Check now, then what was disarmed or failed since the last report (by any check, periodic ones too) for the model. */
  checkAndReport(signal?: AbortSignal): Promise<Disarmed & { incomplete: boolean }>
}

/**
 * The session's memory between turns: the state its last complete check left (null before the
 * first turn, or after an incomplete walk). A process the model left running (`setsid CMD &`) may
 * write between turns, so the next turn compares with this, not with a fresh scan.
 */
export interface GitArmingMemory {
  last: GitdirScan | null
}

/**
 * Take the turn's baseline of `root` (absolute real host path) and return its guard. The baseline is
 * `memory.last` when the session has one (what changed since is disarmed by the first check), else a
 * scan now. Never rejects: an unreadable tree is an empty, incomplete baseline.
 */
export async function watchGitArming(root: string, memory: GitArmingMemory = { last: null }, deadlineMs = SCAN_DEADLINE_MS): Promise<GitArmingWatch> {
  const carried = memory.last !== null
  const before = memory.last ?? (await scanGitdirs(root, { deadlineMs }))
  const total: Disarmed & { incomplete: boolean } = { renamed: [], failed: [], incomplete: before.incomplete }
  let chain: Promise<unknown> = Promise.resolve()
  const once = async (signal?: AbortSignal, ms = deadlineMs): Promise<Disarmed & { incomplete: boolean }> => {
    const after = await scanGitdirs(root, { deadlineMs: ms, ...(signal ? { signal } : {}) })
    const done = await disarmGitdirs(root, before, after)
    total.renamed.push(...done.renamed)
    total.failed.push(...done.failed)
    // a walk cut short by its caller (Stop, the turn's end) is no verdict on the tree
    if (signal?.aborted) return { ...done, incomplete: false }
    total.incomplete ||= after.incomplete
    // only a complete walk is a baseline: what an incomplete one missed would look new (or old) next turn
    if (!after.incomplete) memory.last = after
    return { ...done, incomplete: after.incomplete }
  }
  const check = (signal?: AbortSignal, ms?: number): Promise<Disarmed & { incomplete: boolean }> => {
    // serialised: two parallel calls must not rename the same file twice
    const next = chain.then(() => once(signal, ms))
    chain = next.catch(() => undefined)
    return next
  }
  // the last complete state stays the baseline until a check of this turn completes: a turn whose
  // checks were all cut short (Stop, a huge tree) leaves its changes to the next turn's first check
  if (carried) await check() // what changed between turns, before the model's first step
  const reported = { renamed: 0, failed: 0 }
  const checkAndReport = async (signal?: AbortSignal): Promise<Disarmed & { incomplete: boolean }> => {
    const r = await check(signal)
    const out = { renamed: total.renamed.slice(reported.renamed), failed: total.failed.slice(reported.failed), incomplete: r.incomplete }
    reported.renamed = total.renamed.length
    reported.failed = total.failed.length
    return out
  }
  return { check, checkAndReport, summary: () => ({ renamed: [...total.renamed], failed: [...total.failed], incomplete: total.incomplete }) }
}
