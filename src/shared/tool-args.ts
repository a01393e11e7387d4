/**
 * The cap on a tool call's arguments, shared by the turn loop (refuses and truncates new calls) and
 * the session store (truncates over-cap calls of logs written before the cap, as it loads them).
 */

/** Largest tool-call argument accepted from the model, in bytes of its JSON text (1 MiB); larger calls are refused and stored truncated. */
export const MAX_TOOL_ARGS_BYTES = 1024 * 1024

/** How much of an over-cap argument is kept (in the log and the replayed history), in characters. */
export const TRUNCATED_ARGS_HEAD_CHARS = 2048

/** Result of {@link capToolArgs}. `bytes` is the UTF-8 size of the argument's JSON text. */
export interface CappedArgs {
  args: unknown
  bytes: number
  truncated: boolean
}

/**
 * Bound a call's arguments to {@link MAX_TOOL_ARGS_BYTES}. Within the cap they pass through; over it
 * they become `{ _truncated: <message>, _bytes, _head: <first TRUNCATED_ARGS_HEAD_CHARS chars> }`.
 * @param args parsed JSON input, or the raw text when it was not JSON
 */
export function capToolArgs(args: unknown): CappedArgs {
  const text = typeof args === 'string' ? args : (JSON.stringify(args ?? null) ?? 'null')
  // a UTF-8 byte is at least one UTF-16 unit and at most three: skip the byte count when clearly under
  const bytes = text.length * 3 <= MAX_TOOL_ARGS_BYTES ? text.length : new TextEncoder().encode(text).length
  if (bytes <= MAX_TOOL_ARGS_BYTES) return { args, bytes, truncated: false }
  return {
    args: {
      _truncated: `arguments of ${bytes} bytes exceeded the ${MAX_TOOL_ARGS_BYTES}-byte cap and were dropped`,
      _bytes: bytes,
      _head: detach(text.slice(0, TRUNCATED_ARGS_HEAD_CHARS))
    },
    bytes,
    truncated: true
  }
}

/** A copy of `s` that does not keep its parent string alive (V8 keeps a slice's whole parent otherwise). */
export function detach(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string
}
