/**
 * Workspace path resolution for tools. A model-supplied path (relative to the workspace, or
 * absolute) is resolved inside the guest with the agent's `realpath` (symlinks followed), and refused
 * unless the real path lies inside the workspace's own real path. A path that does not exist yet
 * is accepted when its deepest existing ancestor is inside the workspace (new files, new dirs).
 * A missing path that differs from an existing one only by Unicode normalization (NFC/NFD) or a
 * space variant (U+00A0, U+202F, …) resolves to the existing one, with a note; when several match,
 * they are offered in the not-found error. Names that are not UTF-8 are shown to the model with
 * `\xHH` escapes and accepted back in that form (src/shared/path-bytes.ts); `real` stays in wire form.
 * Pure string work here uses `node:path`'s POSIX helpers only; nothing touches the host filesystem.
 */
import { posix } from 'node:path'
import type { Guest } from '../guest/guest'
import type { RealpathResult } from '../../shared/guest-protocol'
import { hasModelEscapes, modelToWire, wireToModel } from '../../shared/path-bytes'
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
  /** Set when the typed name was matched to an existing name that differs by normalization or spaces. */
  note?: string
  /** Display paths of several near matches of a missing path (for the not-found error). */
  candidates?: string[]
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
    root.catch(() => workspaceRoots.delete(guest)) // forget a failed lookup; its caller gets the error
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
 * @param input the model's path (non-empty); surrounding whitespace is trimmed unless `keepSpaces`
 * @param keepSpaces keep leading/trailing whitespace (for names that really have it)
 * @throws ToolError for an empty path or one containing a NUL character
 */
export function joinWorkspacePath(workspace: string, input: string, keepSpaces = false): string {
  const trimmed = keepSpaces && input.trim() !== '' ? input : input.trim()
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
  const lookup = async (path: string): Promise<RealpathResult> => {
    try {
      return (await guest.call({ op: 'realpath', path, near: true })) as RealpathResult
    } catch (err) {
      rethrowGuestError(err, input ?? '.')
    }
  }
  let resolved = await lookup(joined)
  // Names may begin or end with spaces: when the trimmed path is missing, try it as typed.
  if (!resolved.exists && input !== undefined && input !== input.trim()) {
    const untrimmed = await lookup(joinWorkspacePath(guest.workspace, input, true))
    if (untrimmed.exists) resolved = untrimmed
  }
  // A path that does not exist as typed but uses the \xHH escape names the bytes it escapes.
  if (!resolved.exists && hasModelEscapes(joined)) resolved = await lookup(modelToWire(joined))
  let note: string | undefined
  if (!resolved.exists && resolved.near !== undefined && isInside(root, posix.normalize(resolved.near))) {
    note = nearNote(joined, posix.normalize(resolved.near), displayPath(root, posix.normalize(resolved.near)))
    resolved = { realpath: resolved.near, exists: true }
  }
  const real = posix.normalize(resolved.realpath)
  if (!isInside(root, real)) {
    const via = real !== joined ? ` (it resolves to ${wireToModel(real)})` : ''
    throw new ToolError(
      `Access denied: "${input ?? '.'}" is outside the workspace ${guest.workspace}${via}. ` +
        'Only paths inside the workspace can be used.'
    )
  }
  const out: WorkspacePath = { real, display: displayPath(root, real), exists: resolved.exists }
  if (note) out.note = note
  const candidates = (resolved.nearAmbiguous ?? []).map((c) => posix.normalize(c)).filter((c) => isInside(root, c))
  if (!resolved.exists && candidates.length) out.candidates = candidates.map((c) => displayPath(root, c))
  return out
}

/** Names of the space variants a near match may differ by. */
const SPACE_NAMES: Record<string, string> = {
  '\u00a0': 'U+00A0 NO-BREAK SPACE',
  '\u202f': 'U+202F NARROW NO-BREAK SPACE',
  '\u2007': 'U+2007 FIGURE SPACE',
  '\u2009': 'U+2009 THIN SPACE',
  '\u3000': 'U+3000 IDEOGRAPHIC SPACE'
}

/**
 * The note added to a result when a typed path was matched to an existing one: which characters
 * differ (a space variant by name, or the normalization form).
 * @param typed the joined path as typed @param actual the matched real path @param display its display form
 */
function nearNote(typed: string, actual: string, display: string): string {
  const spaces = [...new Set([...actual].filter((c) => /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/.test(c) && !typed.includes(c)))]
  const why: string[] = []
  if (spaces.length) why.push(`it has ${spaces.map((c) => SPACE_NAMES[c] ?? `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`).join(' and ')} where a plain space was given`)
  if (actual.normalize('NFC') !== actual && typed.normalize('NFC') === typed) why.push('its name is stored decomposed (Unicode NFD) while the path given was composed (NFC)')
  else if (actual.normalize('NFC') === actual && typed.normalize('NFC') !== typed) why.push('its name is stored composed (Unicode NFC) while the path given was decomposed (NFD)')
  const reason = why.length ? why.join('; ') : 'its name differs only in Unicode normalization or space characters'
  return `(Note: no file has exactly the name given, so the existing ${JSON.stringify(display)} was used: ${reason}.)`
}

/**
 * The sentence a not-found error ends with when near matches exist ("" when none).
 * @param target a resolved path that does not exist
 */
export function nearHint(target: WorkspacePath): string {
  if (!target.candidates?.length) return ''
  return ` Files whose names differ only in Unicode normalization or space characters: ${target.candidates.map((c) => JSON.stringify(c)).join(', ')}; give one of them exactly.`
}

/**
 * A path relative to the workspace root for messages, in model form (`.` for the root itself;
 * non-UTF-8 bytes and control characters as `\xHH`, see src/shared/path-bytes.ts).
 * @param root real workspace root
 * @param real real absolute path inside it (wire form)
 */
export function displayPath(root: string, real: string): string {
  if (real === root) return '.'
  return wireToModel(isInside(root, real) ? posix.relative(root, real) : real)
}

/**
 * A path relative to the workspace root in wire form (`.` for the root itself), for rg arguments.
 * @param root real workspace root
 * @param real real absolute path inside it (wire form)
 */
export function relativeWire(root: string, real: string): string {
  return real === root ? '.' : posix.relative(root, real)
}
