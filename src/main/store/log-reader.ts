/**
 * Reads a JSONL file line by line in fixed-size chunks, so a log of any size (past V8's ~512 MiB
 * string limit) loads: no more than one chunk plus one line is held at a time. A line longer than
 * the line cap is skipped without being buffered.
 */
import { closeSync, readSync } from 'node:fs'
import { openNoFollow, READ_NOFOLLOW } from './no-follow'

/** Bytes read per chunk (1 MiB). */
export const READ_CHUNK_BYTES = 1024 * 1024

/** Longest line kept, in bytes (256 MiB, half V8's longest string); longer lines are skipped as damaged. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024

/** Options of {@link forEachLine}; the defaults are the constants above. */
export interface LineReadOptions {
  chunkBytes?: number
  maxLineBytes?: number
}

/** What {@link forEachLine} saw: `overlong` lines skipped, and the most bytes it held at once (chunk + partial line). */
export interface LineReadStats {
  lines: number
  overlong: number
  maxHeldBytes: number
}

/**
 * Call `onLine` with each line of `path` (UTF-8, without its `\n`), in order; a last line without
 * `\n` is passed too. Return `false` from `onLine` to stop early.
 * @throws the fs error when the file cannot be opened or read; CortexError('invalid_input') when
 *   `path` is a symbolic link (never followed)
 */
export function forEachLine(path: string, onLine: (line: string) => boolean | void, opts: LineReadOptions = {}): LineReadStats {
  const chunkBytes = opts.chunkBytes ?? READ_CHUNK_BYTES
  const maxLine = opts.maxLineBytes ?? MAX_LINE_BYTES
  const stats: LineReadStats = { lines: 0, overlong: 0, maxHeldBytes: 0 }
  const buf = Buffer.allocUnsafe(chunkBytes)
  let carry: Buffer[] = []
  let carryLen = 0
  let discarding = false // inside an overlong line: drop bytes up to its end
  const fd = openNoFollow(path, READ_NOFOLLOW)
  const emit = (last: Buffer): boolean => {
    const line = carry.length === 0 ? last.toString('utf8') : Buffer.concat([...carry, last]).toString('utf8')
    carry = []
    carryLen = 0
    stats.lines++
    return onLine(line) !== false
  }
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, null)
      if (n === 0) break
      stats.maxHeldBytes = Math.max(stats.maxHeldBytes, carryLen + n)
      let start = 0
      for (let nl = buf.indexOf(0x0a, start); nl !== -1 && nl < n; nl = buf.indexOf(0x0a, start)) {
        const piece = buf.subarray(start, nl)
        start = nl + 1
        if (discarding) {
          discarding = false
          stats.overlong++
        } else if (carryLen + piece.length > maxLine) {
          carry = []
          carryLen = 0
          stats.overlong++
        } else if (!emit(piece)) {
          return stats
        }
      }
      if (start < n && !discarding) {
        const rest = buf.subarray(start, n)
        if (carryLen + rest.length > maxLine) {
          carry = []
          carryLen = 0
          discarding = true
        } else {
          carry.push(Buffer.from(rest)) // a copy: buf is reused by the next read
          carryLen += rest.length
        }
      }
    }
    if (discarding) stats.overlong++
    else if (carryLen > 0) emit(Buffer.alloc(0))
    return stats
  } finally {
    closeSync(fd)
  }
}
