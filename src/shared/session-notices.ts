/**
 * Notices a session records for the user: `session_resumed` (a stored session continued, with what
 * its damaged log lost and what a crash left open) and `instructions_loaded` (the repository's
 * AGENTS.md or CLAUDE.md joined the system prompt). Both are persisted and shown in the timeline.
 */
import { z } from 'zod'

/** The model connection a session was opened or resumed with (never a key): what a later resume reuses. */
export const ModelRecordShape = {
  provider: z.string().optional(),
  model: z.string().optional(),
  baseUrl: z.string().optional()
}

/** Largest instructions file added to the system prompt, in bytes (32 KiB, ~8k tokens); the rest is cut with a note. */
export const MAX_INSTRUCTIONS_BYTES = 32 * 1024

/** Instruction files looked for at the repository root, first found wins. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const

/** The notice events: `session_resumed`, `instructions_loaded`. */
export const SESSION_NOTICE_EVENTS = [
  /**
   * A stored session was resumed in this process: `skipped` damaged log records were left out
   * (torn line, NUL blocks), `interruptedCalls` tool calls a crashed process left open were closed
   * as interrupted (and `interruptedTurn` ended), with the model connection now in use.
   */
  z.object({
    type: z.literal('session_resumed'),
    skipped: z.number().int().nonnegative(),
    interruptedCalls: z.number().int().nonnegative(),
    interruptedTurn: z.string().optional(),
    ...ModelRecordShape
  }),
  /** `file` (repository-relative) was read through the guest and added to the system prompt: `bytes` of it, `truncated` past the cap. */
  z.object({ type: z.literal('instructions_loaded'), file: z.string(), bytes: z.number().int().nonnegative(), truncated: z.boolean() })
] as const
