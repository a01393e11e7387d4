/**
 * Disarming repositories the guest made or changed: git finds a repository by STRUCTURE (a folder
 * holding `HEAD` and `objects`/`refs` or a `commondir`, or a `.git` folder, file or symlink), and
 * its `config`, `config.worktree`, `commondir` and `hooks/` then run code at the user's next host
 * `git status` there (or in the parent, through a gitlink in the writable index). The model can
 * build all of that with plain file writes, anywhere in the tree. {@link scanGitdirs} walks the
 * whole tree (no entry limit; a deadline, or a folder it may not list, makes the result
 * `incomplete`, which callers report as "unknown", never as "nothing found") and fingerprints the
 * control files of every gitdir it finds and of every target a `.git` pointer names; {@link disarmGitdirs} renames the control files of a
 * gitdir that is new or changed since the turn began to `<name>.cortex-disabled` (nothing is
 * deleted), and a new or changed pointer whose target lies outside the repository is renamed itself.
 * The root gitdir is guarded by read-only mounts (git-protect.ts); only a new `commondir` in it is
 * disarmed here. See docs/adr/0006-guest-cannot-arm-the-host.md.
 */
import { promises as fsp } from 'node:fs'
import type { Dirent } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fingerprint, readSmallRegular } from './host-file-fingerprint'

/** Files of a gitdir that make git run code or read another gitdir's config. */
export const GITDIR_CONTROL = ['config', 'config.worktree', 'commondir', 'hooks'] as const
/** Suffix a disarmed control file gets (then `-2`, `-3`, … when taken). */
export const DISABLED_SUFFIX = '.cortex-disabled'
/** Default time one scan may take before it reports `incomplete` (ms). */
export const SCAN_DEADLINE_MS = 10_000

/** What {@link scanGitdirs} found. */
export interface GitdirScan {
  /** Repository-relative gitdir path ('' for the root folder itself) → fingerprint of its control files ('' when it has none). */
  gitdirs: Map<string, string>
  /** Repository-relative path of a `.git` file or symlink whose target lies outside the repository → its text. */
  outsidePointers: Map<string, string>
  /** True when the walk stopped at its deadline or on abort: what it did not reach is unknown. */
  incomplete: boolean
  /** Directory entries visited. */
  visited: number
}

/** What {@link disarmGitdirs} did, as repository-relative paths. */
export interface Disarmed {
  /** `from → to` renames made. */
  renamed: string[]
  /** Paths it could not rename (with the reason): the user must check them. */
  failed: string[]
}

const names = (list: Dirent[]): Set<string> => new Set(list.map((e) => e.name))

/** Whether a folder with these entries is a gitdir to git (setup.c `is_git_directory`, by name). */
function looksLikeGitdir(n: Set<string>): boolean {
  return n.has('HEAD') && ((n.has('objects') && n.has('refs')) || n.has('commondir'))
}

/** Fingerprint of a gitdir's control files (lstat only, no link followed); '' when none exist. */
async function gitdirFingerprint(abs: string): Promise<string> {
  const parts: string[] = []
  for (const f of GITDIR_CONTROL) {
    const p = join(abs, f)
    const st = await fsp.lstat(p).catch(() => null)
    if (!st) continue
    parts.push(`${f}=${await fingerprint(p, st, f)}`)
    if (f === 'hooks' && st.isDirectory()) {
      const list = await fsp.readdir(p).catch(() => [] as string[])
      for (const h of list.sort().slice(0, 200)) {
        const hs = await fsp.lstat(join(p, h)).catch(() => null)
        if (hs) parts.push(`hooks/${h}=${await fingerprint(join(p, h), hs, h)}`)
      }
    }
  }
  return parts.join('\n')
}

/** The real path a `.git` file or symlink names, or null when unreadable or dangling. */
async function pointerTarget(dirAbs: string, entry: Dirent): Promise<{ text: string; real: string | null }> {
  const abs = join(dirAbs, entry.name)
  let text: string
  if (entry.isSymbolicLink()) text = await fsp.readlink(abs).catch(() => '?')
  else {
    const st = await fsp.lstat(abs).catch(() => null)
    const bytes = st ? await readSmallRegular(abs, '', st) : ''
    const m = typeof bytes === 'string' ? null : /^gitdir:\s*(.+?)\s*$/m.exec(bytes.toString('utf8'))
    text = m ? (m[1] as string) : typeof bytes === 'string' ? bytes : `unparsed:${bytes.length}`
    if (!m) return { text, real: null }
  }
  const real = await fsp.realpath(entry.isSymbolicLink() ? abs : resolve(dirAbs, text)).catch(() => null)
  return { text, real }
}

/**
 * Find every gitdir in the tree at `root` (absolute real host path) and fingerprint its control
 * files. Never follows a symlink while walking; the root `.git` folder is not walked (its control
 * files are read-only mounts) except for a `commondir`, recorded under `.git`.
 * @param opts.deadlineMs how long the walk may take (ms, default {@link SCAN_DEADLINE_MS}); past it, or on `signal`, the scan is `incomplete`
 * @returns the scan; never rejects (an unreadable folder is skipped)
 */
export async function scanGitdirs(root: string, opts: { deadlineMs?: number; signal?: AbortSignal } = {}): Promise<GitdirScan> {
  const scan: GitdirScan = { gitdirs: new Map(), outsidePointers: new Map(), incomplete: false, visited: 0 }
  const until = Date.now() + (opts.deadlineMs ?? SCAN_DEADLINE_MS)
  const rootGit = await fsp.lstat(join(root, '.git')).catch(() => null)
  const rootGitdir = rootGit?.isDirectory() ? join(root, '.git') : await pointerRoot(root)
  // git looks at `<root>/.git` first; only when that is no gitdir (an empty placeholder, ADR 0006 §1)
  // does it take the root folder itself for one (a `.git` file that is no valid pointer stops git)
  const rootIsRepo = rootGit?.isDirectory()
    ? looksLikeGitdir(names(await fsp.readdir(join(root, '.git'), { withFileTypes: true }).catch(() => [] as Dirent[])))
    : !!rootGit
  const inside = (p: string): boolean => p === root || p.startsWith(root + sep)
  // the root gitdir's config and hooks are read-only mounts; a commondir it lacked is not
  if (rootGitdir) {
    const st = await fsp.lstat(join(rootGitdir, 'commondir')).catch(() => null)
    if (st) scan.gitdirs.set(relative(root, rootGitdir), `commondir=${await fingerprint(join(rootGitdir, 'commondir'), st, 'commondir')}`)
  }
  const addGitdir = async (abs: string): Promise<void> => {
    const rel = relative(root, abs)
    if (abs === rootGitdir || scan.gitdirs.has(rel)) return
    // submodule and worktree gitdirs of the root: read-only mounts (git-protect.ts)
    if (rootGitdir && (abs.startsWith(join(rootGitdir, 'modules') + sep) || abs.startsWith(join(rootGitdir, 'worktrees') + sep))) return
    scan.gitdirs.set(rel, await gitdirFingerprint(abs))
  }
  const queue = ['']
  while (queue.length) {
    if (Date.now() > until || opts.signal?.aborted) {
      scan.incomplete = true
      break
    }
    // a few folders at a time: the walk is I/O-bound
    const batch = queue.splice(0, 16)
    const lists = await Promise.all(
      batch.map((dir) =>
        fsp.readdir(join(root, dir), { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
          // a folder we may not list (mode 0311: git still reaches `x/sub` by name) hides what is in it: unknown
          if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') scan.incomplete = true
          return [] as Dirent[]
        })
      )
    )
    for (const [i, list] of lists.entries()) {
      const dir = batch[i] as string
      const dirAbs = join(root, dir)
      scan.visited += list.length
      if (looksLikeGitdir(names(list)) && (dir || !rootIsRepo)) await addGitdir(dirAbs)
      for (const e of list) {
        const rel = dir ? `${dir}/${e.name}` : e.name
        if (e.name === '.git' && !e.isDirectory() && dir) {
          const { text, real } = await pointerTarget(dirAbs, e)
          if (real && inside(real)) await addGitdir(real)
          else scan.outsidePointers.set(rel, text)
        }
        if (e.isDirectory() && rel !== '.git') queue.push(rel)
      }
    }
  }
  return scan
}

/** The real gitdir a root `.git` pointer file names, when it lies inside the repository. */
async function pointerRoot(root: string): Promise<string | null> {
  const list = await fsp.readdir(root, { withFileTypes: true }).catch(() => [] as Dirent[])
  const e = list.find((x) => x.name === '.git' && x.isFile())
  if (!e) return null
  const { real } = await pointerTarget(root, e)
  return real && real.startsWith(root + sep) ? real : null
}

/** Rename `abs` to a free `<abs>.cortex-disabled[-N]`; returns the new path. */
async function renameAside(abs: string): Promise<string> {
  for (let n = 1; n < 100; n++) {
    const to = `${abs}${DISABLED_SUFFIX}${n === 1 ? '' : `-${n}`}`
    if (await fsp.lstat(to).catch(() => null)) continue
    try {
      await fsp.rename(abs, to)
    } catch (err) {
      // a folder the guest made read-only: its owner may write it again (we run as the owner or root)
      if ((err as NodeJS.ErrnoException).code !== 'EACCES') throw err
      await fsp.chmod(dirname(abs), 0o755)
      await fsp.rename(abs, to)
    }
    return to
  }
  throw new Error('too many disabled copies')
}

/**
 * Disarm what changed between `before` (the turn's start) and `after` (now): every gitdir of
 * `after` that is new or whose control files differ gets each control file renamed aside, and a new
 * or changed `.git` pointer to a target outside the repository is renamed aside itself. `after` is
 * updated to the state left behind (so a later comparison with it sees the same config written again).
 * @returns the renames made and the paths it could not rename (a vanished path is no failure)
 */
export async function disarmGitdirs(root: string, before: GitdirScan, after: GitdirScan): Promise<Disarmed> {
  const out: Disarmed = { renamed: [], failed: [] }
  const aside = async (rel: string): Promise<boolean> => {
    try {
      const to = await renameAside(join(root, rel))
      out.renamed.push(`${rel} → ${relative(root, to)}`)
      return true
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') out.failed.push(`${rel} (${(err as Error).message})`)
      return false
    }
  }
  for (const [rel, fp] of after.gitdirs) {
    if (fp === '' || before.gitdirs.get(rel) === fp) continue
    for (const f of GITDIR_CONTROL) {
      if (!fp.split('\n').some((l) => l.startsWith(`${f}=`))) continue
      await aside(rel ? `${rel}/${f}` : f)
    }
    after.gitdirs.set(rel, await gitdirFingerprint(join(root, rel)))
  }
  for (const [rel, text] of after.outsidePointers) if (before.outsidePointers.get(rel) !== text && (await aside(rel))) after.outsidePointers.delete(rel)
  return out
}
