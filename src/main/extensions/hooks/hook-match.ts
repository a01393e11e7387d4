/**
 * Which hooks run for an event: Claude Code's matcher rules over the names a tool answers to (its
 * Cortex name and, for settings written for Claude Code, Claude's name for the same tool; MCP tools
 * as `mcp__server__tool`), and the tool input a hook reads with Claude's field names added.
 */
import { isAbsolute, join } from 'node:path'
import type { HookEventName } from '../../../shared/hooks'
import type { HookCommand } from './hook-config'

/** Claude Code's names for Cortex's built-in tools, so `.claude/settings.json` matchers such as `Bash` or `Edit|Write` work. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, readonly string[]>> = {
  bash: ['Bash'],
  edit_file: ['Edit', 'MultiEdit'],
  write_file: ['Write'],
  read_file: ['Read'],
  glob: ['Glob'],
  grep: ['Grep'],
  todo_write: ['TodoWrite'],
  todo_read: ['TodoRead'],
  task: ['Task']
}

/** Events whose matcher is tested; the others run every hook (Claude Code ignores their matcher). */
const MATCHED_EVENTS: ReadonlySet<HookEventName> = new Set(['PreToolUse', 'PostToolUse', 'SessionStart', 'PreCompact', 'Notification', 'SessionEnd'])

/** A plain name list (`Bash`, `Edit|Write`): matched exactly, name by name. */
const PLAIN = /^[A-Za-z0-9_-]+(\|[A-Za-z0-9_-]+)*$/

/**
 * Whether `matcher` matches one of `names`: absent, `*` or empty matches all; a plain list of names
 * matches exactly (case-sensitive); anything else is a regular expression over the whole name.
 */
export function matcherMatches(matcher: string | undefined, names: readonly string[]): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true
  if (PLAIN.test(matcher)) {
    const wanted = new Set(matcher.split('|'))
    return names.some((n) => wanted.has(n))
  }
  let re: RegExp
  try {
    re = new RegExp(`^(?:${matcher})$`)
  } catch {
    return false // reported when the file was read
  }
  return names.some((n) => re.test(n))
}

/** The names a tool answers to in matchers: its own and Claude Code's. */
export function toolNames(tool: string): string[] {
  return [tool, ...(CLAUDE_TOOL_NAMES[tool] ?? [])]
}

/**
 * The hooks of `hooks` that run for `event` with match value `value` (a tool's name, or the
 * SessionStart source, PreCompact trigger, …), each command once (Claude Code runs identical
 * commands once), in the order given.
 */
export function selectHooks(hooks: readonly HookCommand[], event: HookEventName, value?: string): HookCommand[] {
  const names = value === undefined ? [] : event === 'PreToolUse' || event === 'PostToolUse' ? toolNames(value) : [value]
  const seen = new Set<string>()
  const out: HookCommand[] = []
  for (const h of hooks) {
    if (h.event !== event) continue
    if (MATCHED_EVENTS.has(event) && value !== undefined && !matcherMatches(h.matcher, names)) continue
    const key = `${h.host ? 'host' : 'guest'}\0${h.command}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(h)
  }
  return out
}

/**
 * A tool's input as a hook reads it: the call's arguments, plus Claude Code's `file_path`
 * (absolute) where the tool takes a `path`, so hooks written for Claude (`jq -r .tool_input.file_path`) work.
 */
export function hookToolInput(args: unknown, workspace: string): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { _raw: args }
  const input = { ...(args as Record<string, unknown>) }
  if (typeof input.path === 'string' && input.file_path === undefined) input.file_path = isAbsolute(input.path) ? input.path : join(workspace, input.path)
  return input
}
