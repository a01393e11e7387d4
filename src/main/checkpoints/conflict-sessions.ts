/**
 * Whose work a revert would remove (issue 23): for each path a revert's conflict lists, the other
 * sessions of the repository whose recorded turns changed it — read from their turn snapshots in the
 * shared checkpoint store (`refs/cortex/<session>/t/<turn>/before|after`). A path no session's turn
 * changed was changed outside Cortex (an editor, git). Bounded: at most {@link MAX_TURNS_CHECKED}
 * turns are compared, newest refs first by name order.
 */
import type { ConflictCause } from '../../shared/checkpoints'
import { pathsOf } from './checkpoint-refs'
import type { ShadowStore } from './shadow-store'

/** Most other-session turns compared for one conflict (each comparison is one call in the checkpoint guest). */
export const MAX_TURNS_CHECKED = 40

const TURN_REF = /^refs\/cortex\/([^/]+)\/t\/([^/]+)\/(before|after)$/

/**
 * For each of `paths`, the sessions other than `sessionId` whose turns changed it (ids, in the
 * order found; empty: changed outside Cortex). Never throws: a failed comparison is skipped.
 */
export async function conflictCauses(store: ShadowStore, sessionId: string, paths: string[]): Promise<ConflictCause[]> {
  const bySession = new Map<string, Set<string>>()
  try {
    const refs = await store.refs('refs/cortex/')
    const turns = new Map<string, { session: string; before?: string; after?: string }>()
    for (const [name, commit] of Object.entries(refs)) {
      const m = TURN_REF.exec(name)
      if (!m || m[1] === sessionId) continue
      const key = `${m[1]}/${m[2]}`
      const turn = turns.get(key) ?? { session: m[1]! }
      turn[m[3] as 'before' | 'after'] = commit
      turns.set(key, turn)
    }
    const complete = [...turns.values()].filter((t) => t.before && t.after).slice(-MAX_TURNS_CHECKED)
    for (const t of complete) {
      try {
        const changed = pathsOf((await store.changes(t.before!, t.after!, { within: paths, limit: paths.length })).files)
        for (const p of changed) {
          const set = bySession.get(p) ?? new Set<string>()
          set.add(t.session)
          bySession.set(p, set)
        }
      } catch {
        // a pruned or unreadable snapshot: that turn names nobody
      }
    }
  } catch {
    // no refs readable: every path is reported as changed outside Cortex
  }
  return paths.map((path) => ({ path, sessions: [...(bySession.get(path) ?? [])] }))
}
