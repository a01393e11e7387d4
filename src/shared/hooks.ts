/**
 * Hooks as the front ends see them (src/main/extensions/hooks/): the events a hook can run at
 * (Claude Code's names), and the session events that show them in the timeline — each hook's run
 * (`hook_started`, `hook_finished`) and why the repository's hooks stayed off (`hooks_notice`).
 */
import { z } from 'zod'

/** The points a hook can run at, with Claude Code's names. */
export const HOOK_EVENT_NAMES = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'Notification',
  'SessionEnd'
] as const
/** See {@link HOOK_EVENT_NAMES}. */
export const HookEventNameSchema = z.enum(HOOK_EVENT_NAMES)
/** See {@link HOOK_EVENT_NAMES}. */
export type HookEventName = z.infer<typeof HookEventNameSchema>

/**
 * How one hook's run ended: `ok` (exit 0), `blocked` (exit 2, or JSON `decision: "block"` /
 * `permissionDecision: "deny"` / `continue: false`), `error` (any other exit code, or it could not
 * start: a non-blocking error shown to the user), `timeout` (cut at its timeout), `stopped` (Stop).
 */
export const HookOutcomeSchema = z.enum(['ok', 'blocked', 'error', 'timeout', 'stopped'])
/** See {@link HookOutcomeSchema}. */
export type HookOutcome = z.infer<typeof HookOutcomeSchema>

/** Where a hook came from: the user's own Cortex settings, or the repository's (trusted by the user). */
export const HookSourceSchema = z.enum(['user', 'repository'])

/** Session events of hooks (spread into SessionEventSchema). */
export const HOOK_EVENTS = [
  /**
   * A hook starts: `runId` pairs it with its `hook_finished`; `command` is what runs, `file` the
   * settings file it came from, `host` true only for a hook of the user's settings marked to run on
   * the host (every other hook runs in the guest); `callId` for PreToolUse and PostToolUse.
   */
  z.object({
    type: z.literal('hook_started'),
    runId: z.string(),
    event: HookEventNameSchema,
    command: z.string(),
    source: HookSourceSchema,
    file: z.string(),
    host: z.literal(true).optional(),
    turnId: z.string().optional(),
    callId: z.string().optional()
  }),
  /**
   * A hook ended (see {@link HookOutcomeSchema}) after `durationMs` (ms). `message` is what the user
   * reads (stderr of a failure or block, a reason, stdout unless suppressed); `context` is text the
   * model gets as a user message at this point of the history (a UserPromptSubmit or SessionStart
   * hook's additional context, a Stop hook's reason to go on). A blocked UserPromptSubmit removes its
   * turn's prompt from the model's history.
   */
  z.object({
    type: z.literal('hook_finished'),
    runId: z.string(),
    event: HookEventNameSchema,
    outcome: HookOutcomeSchema,
    exitCode: z.number().int().nullable().optional(),
    durationMs: z.number().nonnegative(),
    message: z.string().optional(),
    context: z.string().optional(),
    turnId: z.string().optional(),
    callId: z.string().optional()
  }),
  /**
   * Why hooks did not run or were read only in part: `untrusted` (the repository's hooks are off
   * until the user enables them), `changed` (they changed since the user enabled them — by anyone,
   * the model included — and are off again until the user looks), `invalid` (a settings file could
   * not be used as it is: `message` says what). `files` are repository-relative (or the user's
   * settings file's path).
   */
  z.object({
    type: z.literal('hooks_notice'),
    kind: z.enum(['untrusted', 'changed', 'invalid']),
    message: z.string(),
    files: z.array(z.string()),
    turnId: z.string().optional()
  })
] as const

/**
 * One line for a finished hook in the terminal front ends: `PreToolUse hook blocked (0.2 s): reason`
 * (the message's first line, at most 300 characters).
 */
export function hookFinishedLine(e: { event: HookEventName; outcome: HookOutcome; durationMs: number; message?: string }): string {
  const word = e.outcome === 'ok' ? 'ran' : e.outcome === 'error' ? 'failed' : e.outcome === 'timeout' ? 'timed out' : e.outcome
  const first = e.message?.split('\n').find((l) => l.trim() !== '')?.slice(0, 300)
  return `${e.event} hook ${word} (${(e.durationMs / 1000).toFixed(1)} s)${first ? `: ${first}` : ''}`
}
