/**
 * Workspace path resolution for tools. A model-supplied path (relative to the workspace, or
 * absolute) is resolved inside the guest with `guest.realpath` (symlinks followed), and refused
 * unless the real path lies inside the workspace's own real path. A path that does not exist yet
 * is accepted when its deepest existing ancestor is inside the workspace (new files, new dirs).
 * Pure string work here uses `node:path`'s POSIX helpers only; nothing touches the host filesystem.
 */
import { posix } from 'node:path'
import type { Guest } from '../guest/guest'
import { ToolError } from './tool'
import { rethrowGuestError } from './guest-errors'

/** A path resolved against the workspace and checked to be inside it. */
export interface WorkspacePath {
  /** Real absolute path inside the guest (symlinks resolved); use this for guest calls. */
  real: string
  /** Path relative to the workspace's real root, `.` for the root itself; use this in messages. */
  display: string
  /** Whether the path itself exists (false: only an ancestor exists). */
  exists: boolean
}

/** Real path of each guest's workspace, resolved once per guest. */
const workspaceRoots = new WeakMap<Guest, Promise<string>>()

/**
 * The real path of `guest.workspace` (cached per guest object).
 * @throws ToolError when the workspace itself does not exist in the guest
 */
export async function workspaceRoot(guest: Guest): Promise<string> {
  let root = workspaceRoots.get(guest)
  if (!root) {
    root = guest.realpath(guest.workspace).then((r) => {
      if (!r.exists) throw new ToolError(`The workspace ${guest.workspace} does not exist in the guest.`)
      return r.realpath
    })
    workspaceRoots.set(guest, root)
    root.catch(() => workspaceRoots.delete(guest))
  }
  return root
}

/**
 * Whether `candidate` equals `root` or lies under it (both absolute, normalised POSIX paths).
 * @param root absolute directory path
 * @param candidate absolute path
 */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true
  const prefix = root.endsWith('/') ? root : `${root}/`
  return candidate.startsWith(prefix)
}

/**
 * Lexically join a model-supplied path onto the workspace: absolute paths are kept, relative ones are
 * joined to `workspace`; the result is normalised (`.`/`..` collapsed, no trailing slash).
 * @param workspace absolute workspace path
 * @param input the model's path (non-empty)
 * @throws ToolError for an empty path or one containing a NUL character
 */
export function joinWorkspacePath(workspace: string, input: string): string {
  const trimmed = input.trim()
  if (trimmed === '') throw new ToolError('The path is empty. Give a path relative to the workspace root or an absolute path inside it.')
  if (trimmed.includes('\0')) throw new ToolError('The path contains a NUL character.')
  const abs = posix.isAbsolute(trimmed) ? trimmed : posix.join(workspace, trimmed)
  const norm = posix.normalize(abs)
  return norm.length > 1 && norm.endsWith('/') ? norm.slice(0, -1) : norm
}

/**
 * Resolve `input` against the guest's workspace and refuse anything whose real path (symlinks
 * resolved by the guest) is outside the workspace's real path.
 * @param guest the session's guest
 * @param input model-supplied path; relative to the workspace root, or absolute; `undefined` → the root
 * @returns the real path, a display path relative to the workspace, and whether it exists
 * @throws ToolError when the path is empty, malformed or outside the workspace
 */
export async function resolveWorkspacePath(guest: Guest, input: string | undefined): Promise<WorkspacePath> {
  const root = await workspaceRoot(guest)
  const joined = joinWorkspacePath(guest.workspace, input ?? '.')
  let resolved: { realpath: string; exists: boolean }
  try {
    resolved = await guest.realpath(joined)
  } catch (err) {
    rethrowGuestError(err, input ?? '.')
  }
  const real = posix.normalize(resolved.realpath)
  if (!isInside(root, real)) {
    const via = real !== joined ? ` (it resolves to ${real})` : ''
    throw new ToolError(
      `Access denied: "${input ?? '.'}" is outside the workspace ${guest.workspace}${via}. ` +
        'Only paths inside the workspace can be used.'
    )
  }
  return { real, display: displayPath(root, real), exists: resolved.exists }
}

/**
 * A path relative to the workspace root for messages (`.` for the root itself).
 * @param root real workspace root
 * @param real real absolute path inside it
 */
export function displayPath(root: string, real: string): string {
  if (real === root) return '.'
  return isInside(root, real) ? posix.relative(root, real) : real
}
