/**
 * Typed errors that end a turn or a request with a message the user can act on. Model-fixable
 * failures are NOT these: they go back to the model as tool results.
 */
import { z } from 'zod'

/** Error codes, each naming what the user should look at. */
export const ErrorCodeSchema = z.enum([
  'provider_config', // a missing key, model id or base URL: the message names the setting
  'provider_unreachable', // the model server could not be reached
  'provider_error', // the model server answered with an error
  'provider_timeout', // the model stream sent nothing for the idle timeout (CORTEX_STREAM_IDLE_TIMEOUT), twice
  'loop_detected', // the model repeated the same failing tool call (src/main/harness/loop-guard.ts)
  'docker_unavailable', // no Docker engine answered
  'image_unavailable', // the guest image is missing and could not be built
  'guest_failed', // the guest could not start or died
  'repo_invalid', // the repository path does not exist or is not a folder
  'invalid_input', // a request or operation failed validation
  'session_not_found',
  'busy', // a turn is already running
  'session_locked', // the session is open in another process
  'session_limit', // too many sessions open in this process (CORTEX_MAX_SESSIONS)
  'compaction_failed', // the summariser failed or its result failed verification twice; the history is kept whole (src/main/harness/compaction)
  'context_overflow', // the fixed part of the context (system prompt, tools, keep-set) alone exceeds the compaction budget, or the provider still says the prompt is too long after compacting
  'history_invalid', // the session history cannot be repaired into a valid model request (src/main/harness/history-validator.ts)
  'internal'
])

/** One of {@link ErrorCodeSchema}'s codes. */
export type ErrorCode = z.infer<typeof ErrorCodeSchema>

/**
 * An error with a stable `code` and a one-line, user-readable `message` that says which setting or
 * component to fix. Thrown by the core; adapters (CLI, IPC, web host) print or forward it as-is.
 */
export class CortexError extends Error {
  /** @param code stable machine-readable code @param message one line for the user */
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown }
  ) {
    super(message, options)
    this.name = 'CortexError'
  }
}

/**
 * Convert anything thrown into a {@link CortexError}: CortexErrors pass through, other errors
 * become `internal` with their message kept.
 */
export function toCortexError(err: unknown): CortexError {
  if (err instanceof CortexError) return err
  const message = err instanceof Error ? err.message : String(err)
  return new CortexError('internal', message, { cause: err })
}
