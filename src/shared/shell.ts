/**
 * The interactive shell into a session's guest (spread into the contract and the event union like
 * the checkpoint and desk parts): a TTY `bash` running as the repository's owner in the repository,
 * in the session's own container (so its sandbox applies). Requests open, feed, resize and close a
 * shell; its output and exit arrive as ephemeral session events (never written to the log). Pure zod.
 */
import { z } from 'zod'

/** Terminal size in character cells. */
const Cols = z.number().int().min(2).max(1000)
const Rows = z.number().int().min(1).max(500)

/** Most characters one shellInput carries (a paste larger than this is sent in pieces). */
export const SHELL_INPUT_MAX_CHARS = 64 * 1024

/** Shell requests. */
export const SHELL_REQUESTS = {
  /**
   * Open a shell in the session's guest (started first if none is attached). Fails `guest_failed`
   * or `docker_unavailable` when there is no guest; `session_not_found` for an unknown session.
   */
  openShell: {
    input: z.object({ sessionId: z.string().min(1), cols: Cols.default(80), rows: Rows.default(24) }),
    output: z.object({ shellId: z.string() })
  },
  /** Keystrokes or pasted text for the shell, as typed (UTF-8 text, control characters included). */
  shellInput: {
    input: z.object({ shellId: z.string().min(1), data: z.string().max(SHELL_INPUT_MAX_CHARS) }),
    output: z.object({ ok: z.literal(true) })
  },
  /** Resize the shell's terminal. */
  resizeShell: {
    input: z.object({ shellId: z.string().min(1), cols: Cols, rows: Rows }),
    output: z.object({ ok: z.literal(true) })
  },
  /** Close the shell (its processes get a hangup). Closing a shell already gone succeeds. */
  closeShell: {
    input: z.object({ shellId: z.string().min(1) }),
    output: z.object({ ok: z.literal(true) })
  }
} as const

/** Shell events (ephemeral): output text as it arrives, and the end of the shell. */
export const SHELL_EVENTS = [
  z.object({ type: z.literal('shell_output'), shellId: z.string(), data: z.string() }),
  /** The shell ended: it exited (`exitCode`), was closed, or its guest went away (`exitCode` null). */
  z.object({ type: z.literal('shell_exited'), shellId: z.string(), exitCode: z.number().int().nullable() })
] as const

/** Types of the shell events, for the ephemeral set. */
export const SHELL_EVENT_TYPES = ['shell_output', 'shell_exited'] as const
