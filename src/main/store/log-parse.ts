/**
 * Reading a session's log back: every valid EventEnvelope line is kept, damage (a torn last line,
 * NUL blocks after a crash, lines over the reader's cap) is counted; over-cap tool arguments of old
 * logs are kept in their truncated form.
 */
import { EventEnvelopeSchema, type EventEnvelope } from '../../shared/events'
import { capToolArgs } from '../../shared/tool-args'
import { forEachLine, type LineReadOptions } from './log-reader'

/** Result of loading a log: the valid envelopes in file order and how many lines were skipped. */
export interface LoadedLog {
  envelopes: EventEnvelope[]
  skipped: number
}

/**
 * Parse a JSONL log's text. Lines that are empty are ignored; lines that are not valid JSON or not
 * a valid envelope (torn writes, NUL padding after a crash) are counted in `skipped`.
 */
export function parseLog(text: string): LoadedLog {
  const out: LoadedLog = { envelopes: [], skipped: 0 }
  for (const raw of text.split('\n')) addLine(out, raw)
  return out
}

/**
 * Parse one raw line into `out` (see {@link parseLog}). A run of NULs (a block the file system
 * zero-filled after a crash) separates records like a newline: a record written after the block on
 * the same line is kept, and each damaged piece counts once; a line of NULs alone counts once.
 */
function addLine(out: LoadedLog, raw: string): void {
  if (!raw.includes('\0')) {
    const envelope = parseLine(raw)
    if (envelope) out.envelopes.push(envelope)
    else if (envelope === null) out.skipped++
    return
  }
  const pieces = raw.split(/\0+/).filter((p) => p.trim() !== '')
  if (pieces.length === 0) out.skipped++
  for (const piece of pieces) {
    const envelope = parseLine(piece)
    if (envelope) out.envelopes.push(envelope)
    else out.skipped++
  }
}

/** One line (or one NUL-separated piece of it): the envelope, `undefined` for an empty line, `null` for a damaged one. */
export function parseLine(raw: string): EventEnvelope | null | undefined {
  const line = raw.includes('\0') ? raw.replace(/\0+/g, '').trim() : raw.trim()
  if (line === '') return raw.length > 0 ? null : undefined
  try {
    const parsed = EventEnvelopeSchema.safeParse(JSON.parse(line))
    return parsed.success ? compact(parsed.data) : null
  } catch {
    return null // not JSON: counted as a damaged line by the caller
  }
}

/** Tool-call arguments over the cap (logs written before it existed) are kept in their truncated form. */
function compact(envelope: EventEnvelope): EventEnvelope {
  const e = envelope.event
  if (e.type === 'assistant_message' && e.toolCalls.some((c) => capToolArgs(c.args).truncated)) {
    return { ...envelope, event: { ...e, toolCalls: e.toolCalls.map((c) => ({ ...c, args: capToolArgs(c.args).args })) } }
  }
  if (e.type === 'tool_call_started') {
    const capped = capToolArgs(e.args)
    if (capped.truncated) return { ...envelope, event: { ...e, args: capped.args } }
  }
  return envelope
}

/**
 * Load a log file of any size as a stream of chunks (see log-reader.ts); lines over its cap count as skipped.
 * @param opts chunk and line caps, for tests
 */
export function loadLogFile(path: string, opts?: LineReadOptions): LoadedLog {
  const out: LoadedLog = { envelopes: [], skipped: 0 }
  const stats = forEachLine(path, (raw) => addLine(out, raw), opts)
  out.skipped += stats.overlong
  return out
}

