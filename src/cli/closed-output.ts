/**
 * A closed stdout/stderr (EPIPE: `cortex sessions | head -3`) ends a CLI command quietly instead of
 * crashing with an unhandled `write EPIPE` and a stack trace. Listing commands just exit (0: the
 * reader had what it wanted); `cortex run` installs its own handler that stops
 * the turn and closes the session first (run-command.ts), then exits 141 (128 + SIGPIPE).
 */

/** Exit status of `cortex run` when its output was closed by the reader (128 + SIGPIPE, as a shell reports a process killed by SIGPIPE). */
export const CLOSED_OUTPUT_EXIT = 141

/** True for the errors a write to a closed pipe reports (EPIPE; ERR_STREAM_DESTROYED for a write after it). */
export function isClosedOutputError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED'
}

/**
 * Call `onClosed` (once) when `streams` (default stdout and stderr) report a closed pipe; any other
 * stream error is rethrown (the default crash). Returns a function that removes the listeners.
 */
export function watchClosedOutput(
  onClosed: () => void,
  streams: NodeJS.WritableStream[] = [process.stdout, process.stderr]
): () => void {
  let called = false
  const listener = (err: unknown): void => {
    if (!isClosedOutputError(err)) throw err
    if (called) return
    called = true
    onClosed()
  }
  for (const s of streams) s.on('error', listener)
  return () => {
    for (const s of streams) s.off('error', listener)
  }
}

/** For a listing command (`sessions`, `rules`): a closed stdout/stderr exits the process at once with status 0, printing nothing. */
export function exitOnClosedOutput(): void {
  watchClosedOutput(() => process.exit(0))
}
