/**
 * Where a repository's checkpoint store lives: a folder of the app's data folder (never inside the
 * repository or its `.git`), one per repository, bind-mounted read-write at
 * {@link CHECKPOINT_STORE_IN_GUEST} into that repository's checkpoint guest only (checkpoint-guests.ts;
 * never into a guest a model command runs in). Only that guest reads or writes inside it (git runs
 * there, see src/main/checkpoints/); the host only creates the folder and may remove it. One per
 * repository rather than per session because sessions on one repository share most objects. See
 * docs/adr/0010-checkpoints.md.
 */
import { createHash } from 'node:crypto'
import { chownSync, lstatSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { CortexError } from '../../shared/errors'

/** Path of the checkpoint store inside the checkpoint guest (outside any repository). */
export const CHECKPOINT_STORE_IN_GUEST = '/opt/cortex/checkpoints'

/** Name of the store folder of `repo` (absolute real path): 16 hex of its sha256. */
export function checkpointStoreName(repo: string): string {
  return createHash('sha256').update(repo).digest('hex').slice(0, 16)
}

/**
 * Create (if missing) the store folder of `repo` under `root` (`<dataDir>/checkpoints`), owned by
 * the repository owner so the checkpoint guest can write it, mode 700. Returns its host path.
 * @throws CortexError('repo_invalid') when the folder is a symlink or not a folder, or cannot be made
 */
export function ensureCheckpointStore(root: string, repo: string, owner: { uid: number; gid: number }): string {
  const dir = join(root, checkpointStoreName(repo))
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 })
    mkdirSync(dir, { mode: 0o700 })
    if (process.getuid?.() === 0) chownSync(dir, owner.uid, owner.gid)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new CortexError('repo_invalid', `cannot create the checkpoint store ${dir}: ${(err as Error).message}`, { cause: err })
    }
  }
  const st = lstatSync(dir)
  if (!st.isDirectory()) throw new CortexError('repo_invalid', `the checkpoint store ${dir} is not a folder (a symlink is refused: a bind would follow it)`)
  return dir
}
