/**
 * `--input stream-json` for `cortex run`: operations arrive on stdin as JSON lines, each exactly a
 * contract operation (OperationSchema of src/shared/events.ts, so every op the contract gains passes
 * through without a change here). A line that is not JSON or not an operation is reported and
 * skipped; the lines after it are still read. A line over {@link MAX_INPUT_LINE_BYTES} is never held
 * whole: it is reported when it reaches the cap and the rest of it is dropped as it arrives.
 */
import { splitLinesBounded } from './bounded-lines'
import { OperationSchema, type Operation, type SessionEvent } from '../shared/events'
import type { ImageInput } from '../shared/images'

/**
 * Longest stdin line accepted, in bytes (16 MiB: a user message with two images of 5 MiB in base64;
 * send more images in separate messages); longer lines are reported and skipped unbuffered.
 */
export const MAX_INPUT_LINE_BYTES = 16 * 1024 * 1024

/** What a stdin line turned into: an operation, or why it was skipped (1-based `line` number). */
export type InputLine = { kind: 'op'; line: number; op: Operation } | { kind: 'bad'; line: number; message: string }

/**
 * Parse one stdin line. Blank lines yield null (ignored).
 * @returns the operation, or `bad` with a message naming what is wrong (not JSON, which field, unknown type)
 */
export function parseInputLine(text: string, line: number): InputLine | null {
  const trimmed = text.trim()
  if (trimmed === '') return null
  let json: unknown
  try {
    json = JSON.parse(trimmed)
  } catch (err) {
    return { kind: 'bad', line, message: `not JSON (${err instanceof Error ? err.message : String(err)})` }
  }
  const parsed = OperationSchema.safeParse(json)
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(operation)'}: ${i.message}`).join('; ')
    return { kind: 'bad', line, message: `not an operation: ${detail}` }
  }
  return { kind: 'op', line, op: parsed.data }
}

/**
 * Read `input` line by line and call `onLine` with each parsed line, in order. At most
 * {@link MAX_INPUT_LINE_BYTES} of a line are buffered: a longer one is reported once as `bad` when
 * it passes the cap and the rest of it is discarded up to its newline (lines after it are read).
 * @returns a promise that resolves when `input` ends (EOF, closed or failed), and `close()` to stop reading early
 */
export function readOperations(input: NodeJS.ReadableStream, onLine: (l: InputLine) => void): { ended: Promise<void>; close(): void } {
  const reader = splitLinesBounded(input, MAX_INPUT_LINE_BYTES, (l) => {
    if (l.kind === 'over') {
      onLine({ kind: 'bad', line: l.line, message: `line is over the ${MAX_INPUT_LINE_BYTES}-byte cap; the rest of it is dropped up to its newline` })
      return
    }
    const parsed = parseInputLine(l.text, l.line)
    if (parsed) onLine(parsed)
  })
  return reader
}

/** What {@link driveStreamInput} works with: the session API (as the CLI holds it) and where it reports. */
export interface StreamInputDeps {
  /** Submit an op to the session; rejects with a CortexError when the session refuses it. */
  submit(op: Operation): Promise<unknown>
  /** Resolve when the session has no running turn. */
  idle(): Promise<void>
  /** Whether a turn is running now. */
  running(): Promise<boolean>
  /** Operations, one JSON line each (process.stdin). */
  input: NodeJS.ReadableStream
  /** Report a skipped line or a refused op (one line on stderr). */
  report(message: string): void
  /** Aborted by Ctrl-C: reading stops at once, the running turn is left to the caller's stop. */
  signal: AbortSignal
  /** Called once when stdin has ended (or reading stopped), before waiting for the running turn. */
  onInputClosed?(): void
  /** Images attached to `prompt` (`--image`). */
  images?: ImageInput[]
}

/**
 * The headless loop: submit `prompt` (when non-empty) as the first user message, then every
 * operation read from `input`, in order, until `input` ends (or `signal` aborts) and no turn is
 * running. A `user_message` while a turn runs is submitted like any op: the session queues it or
 * refuses it, and a refusal is reported, never fatal.
 */
export async function driveStreamInput(prompt: string, d: StreamInputDeps): Promise<void> {
  let chain: Promise<void> = Promise.resolve()
  const submit = (op: Operation, where: string): void => {
    chain = chain.then(
      () => d.submit(op).then(
        () => undefined,
        (err: unknown) => d.report(`${where}: ${op.type} refused: ${err instanceof Error ? err.message : String(err)}`)
      )
    )
  }
  if (prompt.trim() !== '') submit({ type: 'user_message', text: prompt, ...(d.images?.length ? { images: d.images } : {}) }, 'PROMPT')
  const reader = readOperations(d.input, (l) => {
    if (l.kind === 'op') submit(l.op, `stdin line ${l.line}`)
    else d.report(`stdin line ${l.line} skipped: ${l.message}`)
  })
  const aborted = new Promise<void>((resolve) => {
    if (d.signal.aborted) resolve()
    d.signal.addEventListener('abort', () => resolve(), { once: true })
  })
  await Promise.race([reader.ended, aborted])
  reader.close()
  await chain
  d.onInputClosed?.()
  // a queued message may start the next turn as one ends: wait until none runs
  for (;;) {
    await d.idle()
    if (!(await d.running())) return
  }
}

/** Reason given to the model for an approval request nobody can answer any more (stdin closed). */
export const STDIN_CLOSED_REASON = 'no one to ask: stdin was closed (answer approval requests before closing it, or run with --ask never)'

/**
 * With `--input stream-json` approvals are answered on stdin; once stdin is closed nobody can, and a
 * turn waiting for an answer would never end (nor would the process). This denies, with
 * {@link STDIN_CLOSED_REASON}, every request pending when stdin closes and every later one.
 * Feed it every event of the session; call `inputClosed()` when stdin ends.
 */
export function createClosedInputDenier(submit: (op: Operation) => Promise<unknown>, report: (message: string) => void): {
  onEvent(event: SessionEvent): void
  inputClosed(): void
} {
  const pending = new Set<string>()
  let closed = false
  const deny = (requestId: string): void => {
    pending.delete(requestId)
    submit({ type: 'approval_decision', requestId, decision: 'deny', reason: STDIN_CLOSED_REASON }).catch((err: unknown) =>
      report(`approval ${requestId} could not be denied: ${err instanceof Error ? err.message : String(err)}`)
    )
  }
  return {
    onEvent(event) {
      if (event.type === 'approval_requested') {
        if (closed) deny(event.requestId)
        else pending.add(event.requestId)
      } else if (event.type === 'approval_resolved' && event.requestId) {
        pending.delete(event.requestId)
      }
    },
    inputClosed() {
      closed = true
      for (const id of [...pending]) deny(id)
    }
  }
}
