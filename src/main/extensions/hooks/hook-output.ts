/**
 * What one hook's run means, by Claude Code's contract: exit 0 is success (its stdout may be JSON:
 * `continue`/`stopReason`, `suppressOutput`, `decision`/`reason`, `hookSpecificOutput` with
 * `permissionDecision` allow|deny|ask + `permissionDecisionReason` or `additionalContext`; plain
 * stdout of UserPromptSubmit and SessionStart is context for the model); exit 2 blocks with stderr
 * as the reason where the event can block; any other exit code, a timeout or a failure to start
 * is a non-blocking error the user sees.
 */
import type { HookEventName, HookOutcome } from '../../../shared/hooks'
import type { HookProcessResult } from './hook-exec'

/** One hook's verdict. */
export interface HookVerdict {
  outcome: HookOutcome
  /** What the user reads in the hook's row. */
  message?: string
  /** The event is blocked with this reason (PreToolUse: the call is not run; UserPromptSubmit: the prompt; Stop: the turn goes on; PostToolUse: the model is told). */
  block?: string
  /** PreToolUse's `permissionDecision` allow or ask (deny is a {@link HookVerdict.block}). */
  permission?: 'allow' | 'ask'
  /** Text for the model (`additionalContext`, or plain stdout of UserPromptSubmit/SessionStart). */
  context?: string
  /** `continue: false`: the turn ends after this point, with this reason for the user. */
  halt?: string
}

/** Events where exit 2 or `decision: "block"` blocks something. */
const BLOCKING: ReadonlySet<HookEventName> = new Set(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop'])
/** Events whose plain stdout on exit 0 becomes context for the model. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(['UserPromptSubmit', 'SessionStart'])
/** Events whose `additionalContext` reaches the model. */
const TAKES_CONTEXT: ReadonlySet<HookEventName> = new Set(['UserPromptSubmit', 'SessionStart', 'PostToolUse'])

/** Longest text kept of a hook's message or context (characters). */
const MAX_TEXT = 10_000

function cut(text: string): string {
  const t = text.trim()
  return t.length > MAX_TEXT ? `${t.slice(0, MAX_TEXT)}\n[… ${t.length - MAX_TEXT} more characters]` : t
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? cut(v) : undefined
}

/** The JSON object a hook printed on stdout, or undefined when it printed something else. */
function jsonOutput(stdout: string): Record<string, unknown> | undefined {
  const t = stdout.trim()
  if (!t.startsWith('{')) return undefined
  try {
    const v: unknown = JSON.parse(t)
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/**
 * Interpret `r`, the run of a hook for `event` with a timeout of `timeoutS` seconds.
 * @returns the verdict (never throws)
 */
export function interpretHook(event: HookEventName, r: HookProcessResult, timeoutS: number): HookVerdict {
  if (r.stopped) return { outcome: 'stopped', message: 'stopped' }
  if (r.failure !== undefined) return { outcome: 'error', message: `could not run: ${r.failure}` }
  if (r.timedOut) return { outcome: 'timeout', message: `cut at its timeout (${timeoutS} s)${r.stderr.trim() ? `: ${cut(r.stderr)}` : ''}` }
  if (r.exitCode === 2) {
    const reason = str(r.stderr) ?? `a ${event} hook exited 2 without a message`
    return BLOCKING.has(event) ? { outcome: 'blocked', message: reason, block: reason } : { outcome: 'error', message: reason }
  }
  if (r.exitCode !== 0) return { outcome: 'error', message: str(r.stderr) ?? `exit code ${r.exitCode ?? 'none'}` }
  const json = jsonOutput(r.stdout)
  if (!json) {
    const text = str(r.stdout)
    if (text && STDOUT_IS_CONTEXT.has(event)) return { outcome: 'ok', context: text, message: text }
    return { outcome: 'ok', ...(text ? { message: text } : {}) }
  }
  return fromJson(event, json)
}

/** Exit 0 with a JSON object on stdout. */
function fromJson(event: HookEventName, json: Record<string, unknown>): HookVerdict {
  const specific = typeof json.hookSpecificOutput === 'object' && json.hookSpecificOutput !== null ? (json.hookSpecificOutput as Record<string, unknown>) : {}
  const suppress = json.suppressOutput === true
  const verdict: HookVerdict = { outcome: 'ok' }
  const context = str(specific.additionalContext)
  if (context && TAKES_CONTEXT.has(event)) verdict.context = context
  const reason = str(json.reason)
  // PreToolUse: hookSpecificOutput.permissionDecision, or the older decision approve|block
  const permission = event === 'PreToolUse' ? (specific.permissionDecision ?? (json.decision === 'approve' ? 'allow' : json.decision)) : undefined
  if (permission === 'deny' || permission === 'block') {
    verdict.block = str(specific.permissionDecisionReason) ?? reason ?? 'denied by a PreToolUse hook'
  } else if (permission === 'allow' || permission === 'ask') {
    verdict.permission = permission
  } else if (json.decision === 'block' && BLOCKING.has(event)) {
    verdict.block = reason ?? `blocked by a ${event} hook`
  }
  if (json.continue === false) verdict.halt = str(json.stopReason) ?? `a ${event} hook ended the turn`
  if (verdict.block !== undefined || verdict.halt !== undefined) verdict.outcome = 'blocked'
  const shown = verdict.halt ?? verdict.block ?? (permission === 'allow' || permission === 'ask' ? `${permission}${str(specific.permissionDecisionReason) ? `: ${str(specific.permissionDecisionReason)}` : ''}` : undefined)
  if (shown) verdict.message = shown
  else if (!suppress && verdict.context) verdict.message = verdict.context
  return verdict
}

/**
 * What a hook's verdict may decide, by whose file it came from: a repository hook may block, deny or
 * ask, but never approve (`permissionDecision: "allow"`, `decision: "approve"`): its script can read
 * files the trust hash does not cover (package.json scripts, sourced files), so an approval from it
 * would let the model approve its own calls. The user's own hooks keep it.
 */
export function verdictOf(source: 'user' | 'repository', v: HookVerdict): HookVerdict {
  if (source !== 'repository' || v.permission !== 'allow') return v
  const { permission: _dropped, ...rest } = v
  return rest
}
