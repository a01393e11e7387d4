/**
 * Results recorded when Stop cuts a step short, so every recorded tool call has exactly one result:
 * a running call is "interrupted" with the output it produced so far (bounded: head and tail), and
 * calls of the same step that never started are "not run". Calls whose arguments were still
 * streaming are never recorded at all (the turn loop drops them).
 */
import type { SessionEvent, ToolCall } from '../../shared/events'

/** Characters of a stopped call's output kept from its start and from its end (each), UTF-16 units. */
export const INTERRUPTED_OUTPUT_EDGE_CHARS = 2000

/**
 * Characters of a call's streamed output kept with the session (`tool_call_finished.output`) from
 * its start and from its end (each): 32 Ki + 32 Ki UTF-16 units, about 64 KiB of ASCII per call.
 */
export const KEPT_OUTPUT_EDGE_CHARS = 32 * 1024

/** Result of a call that was running when the user pressed Stop (partial output follows when there was any). */
export const STOPPED_RESULT = 'Error: interrupted — stopped by the user before this call finished.'

/** Result of a call of a stopped step that never started. */
export const NOT_RUN_RESULT = 'Error: not run — the user pressed Stop before this call started.'

/** Result of a call of a step that ended with an error before this call started. */
export const NOT_RUN_AFTER_ERROR_RESULT = 'Error: not run — the turn ended with an error before this call started.'

/**
 * The output of one running call as it streams (stdout and stderr interleaved as they arrive),
 * bounded: the first and last {@link INTERRUPTED_OUTPUT_EDGE_CHARS} characters and a count of what
 * was left out between them. Memory stays O(edge) however long the call runs.
 */
export class OutputTail {
  private head = ''
  private tail = ''
  private omitted = 0

  /** @param edge characters kept at each end */
  constructor(private readonly edge = INTERRUPTED_OUTPUT_EDGE_CHARS) {}

  /** Append one chunk of output (either stream). */
  add(chunk: string): void {
    if (this.head.length < this.edge) {
      const room = this.edge - this.head.length
      this.head += chunk.slice(0, room)
      chunk = chunk.slice(room)
    }
    if (chunk === '') return
    const joined = this.tail + chunk
    const cut = Math.max(0, joined.length - this.edge)
    this.omitted += cut
    this.tail = joined.slice(cut)
  }

  /** The kept output, with a marker where characters were left out; '' when nothing was written. */
  text(): string {
    return this.omitted > 0 ? `${this.head}\n[… ${this.omitted} characters left out …]\n${this.tail}` : this.head + this.tail
  }
}

/** The result text for a call stopped while running: {@link STOPPED_RESULT} plus its output so far. */
export function interruptedResult(output: OutputTail): string {
  const text = output.text()
  return text === '' ? `${STOPPED_RESULT} It produced no output.` : `${STOPPED_RESULT} Output so far:\n${text}`
}

/**
 * Record a result for each call of a cut-short step that never started, so none is left dangling.
 * @param reason `stopped` (Stop) or `error` (the turn ended with an error)
 */
export function closeUnstarted(turnId: string, emit: (e: SessionEvent) => void, calls: readonly ToolCall[], reason: 'stopped' | 'error'): void {
  const result = reason === 'stopped' ? NOT_RUN_RESULT : NOT_RUN_AFTER_ERROR_RESULT
  for (const c of calls) emit({ type: 'tool_call_finished', turnId, callId: c.callId, name: c.name, isError: true, result })
}
