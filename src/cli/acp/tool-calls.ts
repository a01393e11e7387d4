/**
 * How a Cortex tool call looks to an ACP client: its kind, title, file locations and, for
 * write_file and edit_file, the diff the model asked for (ADR 0023). Pure: it reads only the call's
 * arguments as the model made them; the change itself happens in the guest.
 */
import { realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path'
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk'

/** The ACP kind of each Cortex tool; an unknown tool (MCP, a later one) is `other`. */
const KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  glob: 'search',
  grep: 'search',
  write_file: 'edit',
  edit_file: 'edit',
  bash: 'execute',
  todo_read: 'think',
  todo_write: 'think',
  plan: 'think',
  spec: 'think',
  goal_done: 'think'
}

/** The ACP {@link ToolKind} of tool `name` (`other` when Cortex has no such built-in tool). */
export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? 'other'
}

type Args = Record<string, unknown>
const argsOf = (args: unknown): Args => (args && typeof args === 'object' && !Array.isArray(args) ? (args as Args) : {})
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)

/** `path` made absolute against the repository `repo` (ACP carries absolute paths only). */
export function absolutePath(repo: string, path: string): string {
  return isAbsolute(path) ? path : resolve(repo, path)
}

const realOr = (p: string): string | undefined => {
  try {
    return realpathSync(p)
  } catch {
    return undefined
  }
}

/**
 * `path` made absolute against `repo`, or undefined when it names a file outside the repository
 * (`../x`, `/home/…`, or through a symlink in the repository): the tool refuses those in the guest,
 * and the editor must not be pointed at (or follow) a file of the host the model chose.
 */
export function repoPath(repo: string, path: string): string | undefined {
  const abs = resolve(repo, path) // `..` collapsed, absolute paths too
  const real = realOr(abs) ?? join(realOr(dirname(abs)) ?? dirname(abs), basename(abs))
  const under = (root: string, p: string): boolean => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep)
  return under(repo, abs) && under(realOr(repo) ?? repo, real) ? abs : undefined
}

/** One line naming the call for the editor: `bash: npm test`, `edit_file src/a.ts`, `grep "TODO" in src`. */
export function toolTitle(name: string, rawArgs: unknown): string {
  const a = argsOf(rawArgs)
  const oneLine = (s: string): string => (s.length > 120 ? `${s.slice(0, 117)}…` : s).replace(/\s*\n\s*/g, ' ⏎ ')
  switch (name) {
    case 'bash':
      return str(a.description) ? `${oneLine(String(a.description))} (bash)` : `bash: ${oneLine(str(a.command) ?? '')}`
    case 'glob':
    case 'grep':
      return `${name} ${JSON.stringify(str(a.pattern) ?? '')}${str(a.path) ? ` in ${a.path as string}` : ''}`
    default:
      return str(a.path) ? `${name} ${a.path as string}` : name
  }
}

/** The files a call touches, absolute, for the editor to follow (read_file with its first line). */
export function toolLocations(repo: string, name: string, rawArgs: unknown): ToolCallLocation[] {
  const a = argsOf(rawArgs)
  const path = str(a.path)
  if (!path || !['read_file', 'write_file', 'edit_file', 'grep', 'glob'].includes(name)) return []
  const line = name === 'read_file' && typeof a.offset === 'number' ? { line: a.offset } : {}
  const abs = repoPath(repo, path)
  return abs ? [{ path: abs, ...line }] : []
}

/**
 * The diffs of a write_file or edit_file call as the model gave them: write_file's whole new
 * content (old text unknown to the adapter: null), edit_file's replaced and replacing text per edit.
 * Empty for any other tool or malformed arguments (the tool itself reports those to the model).
 */
export function toolDiffs(repo: string, name: string, rawArgs: unknown): ToolCallContent[] {
  const a = argsOf(rawArgs)
  const path = str(a.path)
  if (!path) return []
  const abs = repoPath(repo, path)
  if (!abs) return []
  if (name === 'write_file' && typeof a.content === 'string') return [{ type: 'diff', path: abs, oldText: null, newText: a.content }]
  if (name !== 'edit_file') return []
  const edits = Array.isArray(a.edits) ? a.edits.map(argsOf) : [a]
  return edits
    .filter((e) => typeof e.old_string === 'string' && typeof e.new_string === 'string')
    .map((e) => ({ type: 'diff' as const, path: abs, oldText: e.old_string as string, newText: e.new_string as string }))
}

/** A text block of tool call content. */
export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } }
}
