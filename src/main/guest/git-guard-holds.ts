/**
 * Which guests of a repository are starting in this process, so a guest removed meanwhile leaves the
 * placeholders of ./git-protect.ts alone: the starting container binds them.
 */

/** Repository → guests of it starting now. */
const starting = new Map<string, number>()
/** Repository → guests of it that have begun starting so far ({@link guardGeneration}). */
const holds = new Map<string, number>()

/**
 * Mark a guest of `repo` as starting in this process until the returned release is called (once the
 * container runs, or the start failed): a guest removed meanwhile must not remove the placeholders
 * {@link gitGuardMounts} made, because the starting container binds them (see {@link guardHeld}).
 */
export function holdGuard(repo: string): () => void {
  starting.set(repo, (starting.get(repo) ?? 0) + 1)
  holds.set(repo, (holds.get(repo) ?? 0) + 1)
  let released = false
  return () => {
    if (released) return
    released = true
    const n = (starting.get(repo) ?? 1) - 1
    if (n > 0) starting.set(repo, n)
    else starting.delete(repo)
  }
}

/** Whether a guest of `repo` is starting in this process ({@link holdGuard}). */
export function guardHeld(repo: string): boolean {
  return (starting.get(repo) ?? 0) > 0
}

/**
 * How many guests of `repo` have begun starting in this process so far ({@link holdGuard} calls):
 * a remover that awaited Docker compares it before and after, since a start can begin and finish
 * while it waited (its container then binds the placeholder, and Docker's answer may predate it).
 */
export function guardGeneration(repo: string): number {
  return holds.get(repo) ?? 0
}
