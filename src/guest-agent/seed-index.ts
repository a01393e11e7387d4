/**
 * A session's first snapshot starts from the store's newest index of another session (a copy): git
 * then hashes only the files whose stat data changed since that index was written, so an unchanged
 * tree costs about what `git status` costs instead of reading and hashing every file. The index is
 * a cache of what the work tree held, checked against it file by file (size, times, inode), never a
 * source of content; one that names objects the store no longer holds fails `write-tree`, and the
 * snapshot is then taken again from an empty index (checkpoint.ts).
 */
import { promises as fsp } from 'node:fs'
import { join } from 'node:path'

/** Session ids: the names of index files (their `.json` and temp companions never match). */
const SID = /^[A-Za-z0-9_-]+$/

/**
 * Copy the newest other session's index of `store` to session `sid`'s index when `sid` has none.
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
    await fsp.rename(tmp, own)
    return true
  } catch {
    return false
  }
}
