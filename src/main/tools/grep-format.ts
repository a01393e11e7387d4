/**
 * Turns ripgrep's `--json` event stream into grep's model-facing lines: `path:line:text` for matches,
 * `path-line-text` for context, `--` between non-adjacent groups. Events are buffered per file until
 * its `end` event, because only then is it known whether rg met a NUL byte (`binary_offset`): a binary
 * file gets one notice line instead of its bytes. Long lines become a window around the first match
 * with its column; control characters are escaped; non-UTF-8 lines (rg sends them base64) are decoded
 * as Windows-1252 and marked. Pure (no guest access).
 */
import { decodeCp1252 } from './encoding'
import { bytesToWire } from '../../shared/path-bytes'

/** Lines longer than this (characters) are shown as a window around the match. */
export const GREP_LINE_CHARS = 300
/** Characters of the window before / after the match start. */
const WINDOW_BEFORE = 100
const WINDOW_AFTER = 200

/** A `{text}` or `{bytes}` (base64) value of rg's JSON output. */
interface RgData { text?: string; bytes?: string }
/** The parts of rg's JSON `match`/`context`/`begin`/`end` events we use. */
interface RgEvent {
  type: string
  data?: {
    path?: RgData
    lines?: RgData
    line_number?: number
    submatches?: { start: number; end: number }[]
    binary_offset?: number | null
  }
}

/** One buffered match/context line of the current file. */
interface Pending { kind: 'match' | 'context'; line: number; text: string; latin1: boolean; matchByte?: number }

/** Collects rg JSON events into output lines, counting what it emitted. */
export class GrepFormatter {
  /** Output lines so far (matches, context, separators, notices). */
  readonly out: string[] = []
  /** Characters in {@link out} (plus one newline each). */
  chars = 0
  /** Match lines emitted (context and notices excluded). */
  matches = 0
  /** Files with matches reported as binary. */
  binaryFiles = 0
  private file: Pending[] = []
  private path = ''
  private last: { path: string; line: number } | null = null

  /**
   * @param pathOf maps rg's path (wire form: `./x` or the given file) to the workspace-relative display path
   * @param context lines of context requested (separators are only used when > 0)
   */
  constructor(
    private readonly pathOf: (rgPath: string) => string,
    private readonly context: number
  ) {}

  /** Feed one JSON line of rg's output; unparsable lines are ignored. */
  push(jsonLine: string): void {
    let ev: RgEvent
    try {
      ev = JSON.parse(jsonLine) as RgEvent
    } catch {
      return // rg --json writes only JSON lines; anything else carries no match
    }
    const d = ev.data
    if (ev.type === 'begin') {
      this.file = []
      this.path = this.pathOf(pathText(d?.path))
    } else if ((ev.type === 'match' || ev.type === 'context') && d) {
      const { text, latin1 } = dataText(d.lines)
      const first = d.submatches?.[0]
      this.file.push({ kind: ev.type, line: d.line_number ?? 0, text: stripEol(text), latin1, matchByte: first?.start })
    } else if (ev.type === 'end') {
      this.flush(d?.binary_offset ?? null)
    }
  }

  /** Emit the buffered lines of a file that was cut off before its `end` event (search stopped). */
  flushPartial(): void {
    if (this.file.length) this.flush(null)
  }

  /** Buffered lines of the current file (so a caller can stop before a file's end arrives). */
  get pendingLines(): number {
    return this.file.length
  }

  private emit(line: string): void {
    this.out.push(line)
    this.chars += line.length + 1
  }

  private flush(binaryOffset: number | null): void {
    const lines = this.file
    this.file = []
    if (lines.length === 0) return
    if (binaryOffset !== null) {
      const n = lines.filter((l) => l.kind === 'match').length
      this.binaryFiles++
      this.matches += n
      this.emit(`${this.path}: binary file matches (${n} matching line${n === 1 ? '' : 's'}; NUL byte at offset ${binaryOffset}); content not shown — use bash (e.g. strings, xxd) to inspect it`)
      this.last = null
      return
    }
    for (const l of lines) {
      const gap = this.last && (this.last.path !== this.path || l.line > this.last.line + 1)
      if (this.context > 0 && gap) this.emit('--')
      const sep = l.kind === 'match' ? ':' : '-'
      if (l.kind === 'match') this.matches++
      this.emit(`${this.path}${sep}${l.line}${sep}${render(l)}`)
      this.last = { path: this.path, line: l.line }
    }
  }
}

/** A path from rg's JSON in wire form: `{bytes}` (not UTF-8) keep every byte (src/shared/path-bytes.ts). */
function pathText(v: RgData | undefined): string {
  if (v?.bytes !== undefined) return bytesToWire(Buffer.from(v.bytes, 'base64'))
  return v?.text ?? ''
}

/** The text of a `{text}`/`{bytes}` value; bytes (not UTF-8) are decoded as Windows-1252. */
function dataText(v: RgData | undefined): { text: string; latin1: boolean } {
  if (v?.text !== undefined) return { text: v.text, latin1: false }
  if (v?.bytes !== undefined) return { text: decodeCp1252(Buffer.from(v.bytes, 'base64')), latin1: true }
  return { text: '', latin1: false }
}

function stripEol(s: string): string {
  if (s.endsWith('\r\n')) return s.slice(0, -2)
  return s.endsWith('\n') ? s.slice(0, -1) : s
}

/** Escape control characters (tab kept) so no raw terminal bytes reach the model. */
export function escapeControls(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/** One line's display text: escaped, windowed around the match when long, marked when not UTF-8. */
function render(l: Pending): string {
  const mark = l.latin1 ? ' [not UTF-8; shown as Windows-1252]' : ''
  const text = l.text
  if (text.length <= GREP_LINE_CHARS) return escapeControls(text) + mark
  if (l.kind === 'context' || l.matchByte === undefined) {
    return `${escapeControls(text.slice(0, GREP_LINE_CHARS))}… [line of ${text.length} characters, cut]${mark}`
  }
  // rg gives byte offsets; convert to a character offset (Windows-1252 lines are one byte per char).
  const col = l.latin1 ? l.matchByte : Buffer.from(text, 'utf8').subarray(0, l.matchByte).toString('utf8').length
  const from = Math.max(0, col - WINDOW_BEFORE)
  const to = Math.min(text.length, col + WINDOW_AFTER)
  const window = `${from > 0 ? '…' : ''}${escapeControls(text.slice(from, to))}${to < text.length ? '…' : ''}`
  return `${window} [match at column ${col + 1} of a ${text.length}-character line; window shown]${mark}`
}
