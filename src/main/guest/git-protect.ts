/**
 * The extra bind mounts that keep the repository's git control files out of the guest's reach, so
 * nothing the model does inside the guest makes the user's host `git` (or IDE, or shell prompt) run
 * code later: `.git/config`, `.git/hooks/`, `.git/info/` (and `config.worktree`, `commondir`) of
 * the repository's gitdir and of every submodule gitdir under `.git/modules/`, the `config` files
 * of `.git/worktrees/*`, and a `.git` pointer FILE are mounted read-only over themselves; a `.git`
 * folder is pinned (bound onto itself) so it cannot be renamed away and replaced; a folder without
 * `.git` gets an empty read-only `.git`, so `git init` cannot plant a new gitdir at the root.
 * Missing control paths are created on the host first, owned by the repository owner, because a
 * bind target must exist. Host symlinks there are refused: a mount would follow them. Files the
 * guest may have made (`.gitmodules`, `.git` pointers, `commondir`) are read without blocking or
 * following a link, and a submodule folder is bound only by its real path inside the repository. See
 * docs/adr/0006-guest-cannot-arm-the-host.md.
 */
import { chownSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, rmdirSync } from 'node:fs'
import type { Stats } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { CortexError } from '../../shared/errors'
import type { SandboxPolicy } from '../../shared/sandbox'
import { listDirs, readRegularFile, safeRealpath } from './git-control-files'

export { guardGeneration, guardHeld, holdGuard } from './git-guard-holds'

/** One bind of a host path onto the same path in the guest. */
export interface GitGuardMount {
  /** Absolute host path (also the guest path). */
  path: string
  readOnly: boolean
}

/** What {@link gitGuardMounts} decided. */
export interface GitGuard {
  /** Binds to add after the repository bind (Docker orders them by depth). */
  mounts: GitGuardMount[]
  /**
   * Empty placeholder folders this guest mounts (created here, or left by another guest of the
   * same folder); rmdir them (if still empty and no other guest of the folder runs) when it goes.
   */
  createdEmptyDirs: string[]
  /** Things the guard could not protect, for the log (e.g. a gitdir outside the repository). */
  notes: string[]
}

/** Most gitdirs (submodules nested in submodules included) protected under one repository. */
const MAX_GITDIRS = 64
/** Deepest submodule name path walked under `.git/modules` (names may contain `/`). */
const MAX_MODULE_DEPTH = 6

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p)
  } catch {
    return null // absent: nothing to protect
  }
}

/** Whether `p` is `root` or lies below it (both absolute, real paths). */
export function isInsideRepo(root: string, p: string): boolean {
  const rel = relative(root, p)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..')
}

/**
 * Decide the git protection mounts of `repo` for a guest running as uid:gid under `policy`.
 * Under `read-only` the whole repository is already read-only: no mounts, nothing created.
 * @param repo absolute real path of the repository folder
 * @throws CortexError `repo_invalid` when a protected path is a symlink (a bind would follow it
 *   out of the repository), a `.git` pointer file cannot be read, or a missing protected path
 *   cannot be created (except on a read-only file system).
 */
export function gitGuardMounts(repo: string, owner: { uid: number; gid: number }, policy: SandboxPolicy): GitGuard {
  const guard: GitGuard = { mounts: [], createdEmptyDirs: [], notes: [] }
  if (policy === 'read-only') return guard
  const make = (p: string, kind: 'dir' | 'file'): boolean => {
    try {
      if (kind === 'dir') mkdirSync(p, { mode: 0o755 })
      else closeSync(openSync(p, 'wx', 0o644))
      if (process.getuid?.() === 0) chownSync(p, owner.uid, owner.gid)
      return true
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      // created meanwhile (another guest of this folder starting): it exists, protect it
      if (code === 'EEXIST') return !lstatOrNull(p)?.isSymbolicLink()
      // a read-only file system: the guest cannot create it either
      if (code === 'EROFS') {
        guard.notes.push(`could not create ${p}: ${(err as Error).message}`)
        return false
      }
      // left missing, the guest (running as the owner) could create it unprotected: refuse instead
      throw new CortexError(
        'repo_invalid',
        `cannot prepare ${p} for the guest (${code ?? (err as Error).message}); Cortex creates it so it can keep it read-only in the guest. Create it yourself (as the repository's owner) or fix the folder's permissions`,
        { cause: err }
      )
    }
  }
  const refuseLink = (p: string): never => {
    throw new CortexError(
      'repo_invalid',
      `${p} is a symbolic link; Cortex must make it read-only inside the guest and a mount would follow the link. Replace the link with the real ${p.endsWith('config') ? 'file' : 'folder'} and open the repository again`
    )
  }
  /** Protect one entry of a gitdir; `create` makes a missing one first. */
  const protect = (p: string, kind: 'dir' | 'file', create: boolean): void => {
    const st = lstatOrNull(p)
    if (st?.isSymbolicLink()) refuseLink(p)
    if (!st && !(create && make(p, kind))) return
    guard.mounts.push({ path: p, readOnly: true })
  }
  const pinned = new Set<string>()
  /** Bind `dir` and each folder between the repository root and it onto itself (read-write). */
  const pin = (dir: string): void => {
    if (pinned.has(dir) || dir === repo || !isInsideRepo(repo, dir)) return
    pin(dirname(dir))
    pinned.add(dir)
    guard.mounts.push({ path: dir, readOnly: false })
  }
  const seen = new Set<string>()
  /**
   * Protect the control files of the gitdir `gd` (a real path inside the repository). `nested`: a
   * submodule or worktree gitdir inside a read-only `modules/`/`worktrees/` folder, bound read-write
   * by itself; otherwise the gitdir and every folder up to the repository root are pinned.
   */
  const protectGitdir = (gd: string, create: boolean, depth: number, nested = false): void => {
    if (seen.has(gd) || seen.size >= MAX_GITDIRS) {
      if (!seen.has(gd)) guard.notes.push(`more than ${MAX_GITDIRS} gitdirs; ${gd} is not protected`)
      return
    }
    seen.add(gd)
    // pinned: a mount point cannot be renamed away and forged anew
    if (nested) guard.mounts.push({ path: gd, readOnly: false })
    else pin(gd)
    protect(join(gd, 'config'), 'file', create)
    protect(join(gd, 'hooks'), 'dir', create)
    protect(join(gd, 'info'), 'dir', create)
    for (const extra of ['config.worktree', 'commondir', 'gitdir']) protect(join(gd, extra), 'file', false)
    const common = join(gd, 'commondir')
    const commonText = lstatOrNull(common)?.isFile() ? readRegularFile(common) : null
    if (commonText !== null) {
      const target = resolve(gd, commonText.trim())
      const real = safeRealpath(target)
      if (real && isInsideRepo(repo, real)) protectGitdir(real, false, depth)
    }
    // no new submodule or worktree gitdir can be planted (its config or commondir would run on the
    // host): both folders are read-only, the existing gitdirs in them bound read-write again
    for (const group of ['modules', 'worktrees'] as const) {
      const dir = join(gd, group)
      const gst = lstatOrNull(dir)
      if (gst?.isSymbolicLink()) refuseLink(dir)
      if (!gst && !(create && make(dir, 'dir'))) continue
      // made now only to be a bind target: removed again by the last guest (the user's .git stays as it was);
      // an empty one found is adopted too — most likely a placeholder a killed host never removed, and
      // an empty modules/ or worktrees/ means nothing to git
      if (!gst || (gst.isDirectory() && readdirSync(dir).length === 0)) guard.createdEmptyDirs.push(dir)
      if (gst && !gst.isDirectory()) continue
      guard.mounts.push({ path: dir, readOnly: true })
      walkGitdirs(dir, depth, group === 'modules')
    }
  }
  /** Gitdirs below `dir`: worktrees one level down; submodules at any depth (names may contain `/`). */
  const walkGitdirs = (dir: string, depth: number, deep: boolean): void => {
    if (depth > MAX_MODULE_DEPTH) return
    for (const name of listDirs(dir)) {
      const d = join(dir, name)
      if (lstatOrNull(join(d, 'HEAD'))?.isFile() || !deep) protectGitdir(d, false, depth + 1, true)
      else walkGitdirs(d, depth + 1, deep)
    }
  }

  const dotGit = join(repo, '.git')
  const st = lstatOrNull(dotGit)
  if (!st) {
    // no repository yet: an empty read-only .git keeps `git init` (and a planted gitdir) out
    if (make(dotGit, 'dir')) {
      guard.createdEmptyDirs.push(dotGit)
      guard.mounts.push({ path: dotGit, readOnly: true })
    }
  } else if (st.isSymbolicLink()) {
    refuseLink(dotGit)
  } else if (st.isFile()) {
    // a worktree or submodule checkout: the pointer itself must not be re-pointed
    guard.mounts.push({ path: dotGit, readOnly: true })
    let text: string | null
    try {
      text = readRegularFile(dotGit)
    } catch (err) {
      throw new CortexError('repo_invalid', `cannot read ${dotGit}: ${(err as Error).message}`)
    }
    if (text === null) throw new CortexError('repo_invalid', `cannot read ${dotGit}: it is no longer a regular file`)
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(text)
    const real = m ? safeRealpath(resolve(repo, m[1] as string)) : null
    if (real && isInsideRepo(repo, real)) protectGitdir(real, true, 0)
    else guard.notes.push(`${dotGit} points outside the repository (${m?.[1] ?? 'unreadable'}); that gitdir is not visible in the guest`)
  } else if (st.isDirectory() && !lstatOrNull(join(dotGit, 'HEAD'))) {
    // not a gitdir (e.g. another guest's empty placeholder): read-only as it is; the last guest
    // to go removes it while it is empty
    guard.mounts.push({ path: dotGit, readOnly: true })
    if (readdirSync(dotGit).length === 0) guard.createdEmptyDirs.push(dotGit)
  } else if (st.isDirectory()) {
    // pinned (in protectGitdir): a mount point cannot be renamed or removed, so `.git` cannot be
    // swapped for a forged one
    protectGitdir(dotGit, true, 0)
  }
  protectSubmoduleLinks(repo, guard, refuseLink, pin)
  return guard
}

/** Submodule checkouts' `.git` pointer files (paths from `.gitmodules`) are read-only too, their folders pinned. */
function protectSubmoduleLinks(repo: string, guard: GitGuard, refuseLink: (p: string) => never, pin: (dir: string) => void): void {
  let text: string | null
  try {
    text = readRegularFile(join(repo, '.gitmodules'))
  } catch {
    return // no .gitmodules: no submodule links to protect
  }
  // a link, FIFO or device (git itself ignores a symlinked .gitmodules): no submodule links to protect
  if (text === null) return
  for (const m of text.matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)) {
    // Docker resolves a bind's source on the host, links included: a path through a symlink the
    // model planted (`x -> /elsewhere`) would bind that folder into the guest read-write. Only the
    // real folder is pinned, and only when it lies inside the repository.
    const dir = safeRealpath(resolve(repo, m[1] as string))
    if (!dir || dir === repo || !isInsideRepo(repo, dir)) continue
    const p = join(dir, '.git')
    const st = lstatOrNull(p)
    if (st?.isSymbolicLink()) refuseLink(p)
    if (!st?.isFile()) continue
    pin(dirname(p))
    guard.mounts.push({ path: p, readOnly: true })
  }
}

/** Remove the placeholder folders {@link gitGuardMounts} created, when they are still empty. */
export function removeGuardPlaceholders(guard: Pick<GitGuard, 'createdEmptyDirs'>): void {
  for (const d of guard.createdEmptyDirs) {
    try {
      rmdirSync(d)
    } catch {
      // not empty (the user ran git init on the host meanwhile) or already gone
    }
  }
}
