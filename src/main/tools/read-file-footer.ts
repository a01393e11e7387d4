/**
 * read_file's line scan state and the footer it ends with (./read-file.ts): which lines were shown,
 * the total when known, the offset to continue from, line endings, encoding and cut lines.
 */
import { formatBytes, MAX_LINE_CHARS, MAX_RESULT_CHARS } from './limits'
import { thousands } from './text'
import { encodingLabel, type TextEncodingName } from './encoding'

/** State of the line scan while chunks arrive. */
export interface Scan {
  lineNo: number
  shown: string[]
  chars: number
  firstShown: number
  lastShown: number
  /** First line of the window that was not shown because of the character cap (0 = none). */
  cappedAt: number
  crlf: boolean
  /** Lines cut because they were longer than {@link MAX_LINE_CHARS} and skipped by the agent's scan. */
  longCut: number
}

/** The footer: which lines were shown, the total, how to continue, line endings and encoding. */
export function footer(scan: Scan, total: number | undefined, size: number, display: string, encoding: TextEncodingName, bom: boolean): string {
  const range = `lines ${scan.firstShown}–${scan.lastShown}`
  const of = total !== undefined ? ` of ${total}` : ''
  const notes =
    (scan.crlf ? ' Line endings are CRLF (\\r not shown).' : '') +
    (bom && encoding === 'utf-8' ? ' The file starts with a UTF-8 byte-order mark (not shown; edit_file keeps it).' : '') +
    (encoding !== 'utf-8' ? ` Encoding: ${encodingLabel(encoding)}; shown decoded, and edit_file keeps this encoding.` : '') +
    (scan.longCut ? ` ${scan.longCut} line${scan.longCut === 1 ? ' was' : 's were'} longer than ${thousands(MAX_LINE_CHARS)} characters and cut; use bash (e.g. cut -c1-5000 or head -c) to see more of ${scan.longCut === 1 ? 'it' : 'them'}.` : '')
  const next = `To continue, call read_file with offset=${scan.lastShown + 1}.`
  if (scan.cappedAt) {
    return `(${display}: output capped at ${thousands(MAX_RESULT_CHARS)} characters; showing ${range}${of}. ${next}${notes})`
  }
  if (total !== undefined && scan.lastShown >= total) {
    const whole = scan.firstShown === 1 ? `end of file, all ${total} lines shown` : `showing ${range}${of}; end of file`
    return `(${display}: ${whole}.${notes})`
  }
  const unknown = total === undefined ? `; the file is ${formatBytes(size)} and continues (total line count not computed)` : ''
  return `(${display}: showing ${range}${of}${unknown}. ${next}${notes})`
}
