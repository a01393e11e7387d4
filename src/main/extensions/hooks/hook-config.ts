/**
 * Hook definitions in Claude Code's settings format, as Cortex reads them from the user's settings
 * and a repository's `.cortex/settings.json`, `.claude/settings.json` and `.claude/settings.local.json`:
 * `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}`.
 * Parsing never throws: what cannot be used is reported as a problem and left out.
 */
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser'
import { HOOK_EVENT_NAMES, type HookEventName } from '../../../shared/hooks'

/** A hook's default timeout (s), as in Claude Code. */
export const DEFAULT_HOOK_TIMEOUT_S = 60
/** Longest timeout a hook may ask for (s): 10 minutes. */
export const MAX_HOOK_TIMEOUT_S = 600

/** One hook command as read from a settings file. */
export interface HookCommand {
  event: HookEventName
  /** Claude Code's matcher (tool names for PreToolUse/PostToolUse, a source/trigger/reason for others); undefined: every one. */
  matcher?: string
  /** The shell command (run with `bash -c`). */
  command: string
  /** Timeout in seconds (default {@link DEFAULT_HOOK_TIMEOUT_S}). */
  timeoutS: number
  /** Run on the host instead of the guest: honoured only for the user's own settings. */
  host: boolean
  source: 'user' | 'repository'
  /** The settings file: repository-relative for the repository's, absolute for the user's. */
  file: string
}

/** What one settings file's `hooks` gave. */
export interface ParsedHooks {
  hooks: HookCommand[]
  /** What was left out and why, one line each (shown to the user as a `hooks_notice`). */
  problems: string[]
}

const EVENTS: ReadonlySet<string> = new Set(HOOK_EVENT_NAMES)

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Parse the text of a settings file (JSON; comments and trailing commas tolerated) and return its hooks.
 * @param text the file's contents
 * @param source whose file it is: a repository's hook marked `"host": true` is a problem and runs in the guest
 * @param file the name used in problems and on each hook
 */
export function parseHooksFile(text: string, source: HookCommand['source'], file: string): ParsedHooks {
  const errors: ParseError[] = []
  const json: unknown = parseJsonc(text, errors, { allowTrailingComma: true })
  if (errors.length > 0) {
    const e = errors[0] as ParseError
    return { hooks: [], problems: [`${file}: not valid JSON (${printParseErrorCode(e.error)} at offset ${e.offset}); its hooks are not used`] }
  }
  if (!isRecord(json)) return { hooks: [], problems: [`${file}: not a JSON object; its hooks are not used`] }
  return parseHooksValue(json.hooks, source, file)
}

/**
 * Read a settings file's `hooks` value (already parsed). Absent: no hooks, no problem.
 * @see parseHooksFile
 */
export function parseHooksValue(value: unknown, source: HookCommand['source'], file: string): ParsedHooks {
  const hooks: HookCommand[] = []
  const problems: string[] = []
  if (value === undefined) return { hooks, problems }
  if (!isRecord(value)) return { hooks, problems: [`${file}: "hooks" must be an object of events; its hooks are not used`] }
  for (const [event, groups] of Object.entries(value)) {
    if (!EVENTS.has(event)) {
      problems.push(`${file}: unknown hook event "${event}" (known: ${HOOK_EVENT_NAMES.join(', ')}); left out`)
      continue
    }
    if (!Array.isArray(groups)) {
      problems.push(`${file}: hooks.${event} must be an array of {matcher, hooks}; left out`)
      continue
    }
    for (const [gi, group] of groups.entries()) {
      const where = `${file}: hooks.${event}[${gi}]`
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        problems.push(`${where} must be {"matcher": …, "hooks": [{"type": "command", "command": …}]}; left out`)
        continue
      }
      if (group.matcher !== undefined && typeof group.matcher !== 'string') {
        problems.push(`${where}.matcher must be a string; left out`)
        continue
      }
      const matcher = typeof group.matcher === 'string' && group.matcher !== '' && group.matcher !== '*' ? group.matcher : undefined
      if (matcher !== undefined && !validMatcher(matcher)) {
        problems.push(`${where}.matcher "${matcher}" is not a valid regular expression; left out`)
        continue
      }
      for (const [hi, h] of group.hooks.entries()) {
        const at = `${where}.hooks[${hi}]`
        const hook = parseOne(h, at, source, problems)
        if (hook) hooks.push({ event: event as HookEventName, ...(matcher !== undefined ? { matcher } : {}), ...hook, source, file })
      }
    }
  }
  return { hooks, problems }
}

/** One `{type, command, timeout, host}` entry, or undefined (with a problem pushed). */
function parseOne(h: unknown, at: string, source: HookCommand['source'], problems: string[]): Pick<HookCommand, 'command' | 'timeoutS' | 'host'> | undefined {
  if (!isRecord(h)) {
    problems.push(`${at} must be an object; left out`)
    return undefined
  }
  if (h.type !== 'command') {
    problems.push(`${at}: only "type": "command" hooks are supported (got ${JSON.stringify(h.type)}); left out`)
    return undefined
  }
  if (typeof h.command !== 'string' || h.command.trim() === '') {
    problems.push(`${at}: "command" must be a non-empty string; left out`)
    return undefined
  }
  let timeoutS = DEFAULT_HOOK_TIMEOUT_S
  if (h.timeout !== undefined) {
    if (typeof h.timeout !== 'number' || !(h.timeout > 0)) {
      problems.push(`${at}: "timeout" must be a number of seconds > 0; the default ${DEFAULT_HOOK_TIMEOUT_S} s is used`)
    } else timeoutS = Math.min(h.timeout, MAX_HOOK_TIMEOUT_S)
  }
  let host = h.host === true
  if (host && source === 'repository') {
    problems.push(`${at}: "host": true is honoured only in your own Cortex settings, never a repository's; this hook runs in the guest`)
    host = false
  }
  return { command: h.command, timeoutS, host }
}

function validMatcher(m: string): boolean {
  try {
    new RegExp(m)
    return true
  } catch {
    return false
  }
}
