/**
 * A session's first snapshot starts from the store's newest index of another session (a copy): git
 * then hashes only the files whose stat data changed since that index was written, so an unchanged
 * tree costs about what `git status` costs instead of reading and hashing every file. The index is
 * a cache of what the work tree held, checked against it file by file (size, times, inode), never a
 * source of content. The copy keeps git's racy-git protection: its modification time is set a
 * second before the original's, so an entry written in the same second as the original index (a
 * file rewritten with the same size right after that snapshot) is still re-read. A marker
 * (`<sid>.seeded`) says the session's index is a copy until a snapshot from it succeeds: until then
 * checkpoint.ts drops entries that are ignored now and, when git refuses the copy (objects the
 * store no longer holds), takes the snapshot again from an empty index.
 */
import { promises as fsp } from 'node:fs'
import { join } from 'node:path'

/** Session ids: the names of index files (their `.json` and temp companions never match). */
const SID = /^[A-Za-z0-9_-]+$/

/** The marker of a session whose index is a copy no snapshot has succeeded from yet. */
export function seededMarker(store: string, sid: string): string {
  return join(store, 'index', `${sid}.seeded`)
}

/** Whether session `sid`'s index is a copy no snapshot has succeeded from yet. */
export function isSeeded(store: string, sid: string): Promise<boolean> {
  return fsp.lstat(seededMarker(store, sid)).then(() => true, () => false)
}

/**
 * Copy the newest other session's index of `store` to session `sid`'s index when `sid` has none,
 * its modification time a second before the original's, and mark it ({@link seededMarker}).
 * Resolves whether one was copied; never rejects (a store with no usable index: false).
 */
export async function seedIndex(store: string, sid: string): Promise<boolean> {
  const dir = join(store, 'index')
  const own = join(dir, sid)
  try {
    if (await fsp.lstat(own).then(() => true, () => false)) return false
    let newest: { path: string; mtimeMs: number } | undefined
    for (const name of await fsp.readdir(dir)) {
      if (name === sid || !SID.test(name)) continue
      const st = await fsp.lstat(join(dir, name)).catch(() => undefined)
      if (st?.isFile() && (!newest || st.mtimeMs > newest.mtimeMs)) newest = { path: join(dir, name), mtimeMs: st.mtimeMs }
    }
    if (!newest) return false
    // git replaces an index by rename, so the copy is of one whole index; ours appears whole too
    const tmp = `${own}.seed-${process.pid}-${Date.now()}`
    await fsp.copyFile(newest.path, tmp)
    // never newer than the original (git compares whole seconds): what was racily clean stays so
    const t = Math.floor(newest.mtimeMs / 1000) - 1
    await fsp.utimes(tmp, t, t)
    await fsp.writeFile(seededMarker(store, sid), '')
    await fsp.rename(tmp, own)
    return true
  } catch {
    return false
  }
}
