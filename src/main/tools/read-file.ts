/**
 * read_file: show a window of a text file's lines, numbered `cat -n` style. The file is read from the
 * guest in growing chunks (64 KiB first) only as far as the window needs, so the first page of a huge
 * file costs one small read. Bounded by a line limit and a character cap; a footer gives the range,
 * the total when the whole file was read, and the offset to continue from. A PNG, JPEG, GIF or WebP
 * (by magic numbers) is returned as an image (read-image.ts). Other binary files (known magic
 * numbers, or a NUL byte in the first 8 KiB) get a notice with their type and size; text that is not
 * UTF-8 is decoded in its detected encoding (UTF-16 by BOM, else Windows-1252/Latin-1) and the footer
 * says so — never U+FFFD. Directories, missing files, special files and paths outside the workspace
 * are distinct ToolErrors. What was shown is remembered (content hash) for edit_file's stale check.
 */
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { defineTool, ToolError, type ToolContext } from './tool'
import { nearHint, resolveWorkspacePath } from './paths'
import { rethrowGuestError } from './guest-errors'
import { formatBytes, MAX_LINE_CHARS, MAX_RESULT_CHARS, truncateLine } from './limits'
import { fromBase64, numberLine, thousands } from './text'
import { detectEncoding, encodingLabel, sniffBinary, streamDecoder, type TextEncodingName } from './encoding'
import { rememberSeen } from './guest-state'
import type { ReadResult } from '../../shared/guest-protocol'
import { sniffImage } from './image-check'
import { readImage, type ImageFound } from './read-image'
import { footer, type Scan } from './read-file-footer'

/** Default number of lines shown when `limit` is not given. */
export const READ_DEFAULT_LIMIT = 2_000
/** Bytes of the first read call; later calls double up to {@link MAX_CHUNK_BYTES}. */
export const FIRST_CHUNK_BYTES = 64 * 1024
/** Largest single read call, in bytes. */
const MAX_CHUNK_BYTES = 1024 * 1024
/** Host-side streaming stops here even if the window was not reached (UTF-16 files; others jump). */
const MAX_SCAN_BYTES = 128 * 1024 * 1024
/** Files larger than this (bytes) are paged with the agent's newline scan instead of from byte 0. */
export const JUMP_MIN_BYTES = 10 * 1024 * 1024
/** Most bytes one agent newline scan reads before giving up (use bash beyond). */
const MAX_AGENT_SCAN_BYTES = 16 * 1024 * 1024 * 1024
/** Characters kept free under {@link MAX_RESULT_CHARS} for the footer. */
const FOOTER_RESERVE = 700

const description = `Read a text file from the workspace. Returns its lines numbered like \`cat -n\` (line number right-aligned in 6 columns, a tab, then the line exactly as in the file, tabs included).

- path: relative to the workspace root, or absolute inside the workspace. A name that glob or grep showed with \\xHH escapes (bytes that are not UTF-8) is accepted in that form. A name that differs from an existing file's only by Unicode normalization or a no-break space finds that file (a note says so).
- offset: 1-based line to start at (default 1). limit: how many lines (default ${READ_DEFAULT_LIMIT}).
- The output is also capped at about ${thousands(MAX_RESULT_CHARS)} characters, and a line longer than ${thousands(MAX_LINE_CHARS)} characters is cut with a marker (in a large file the rest of such a line is skipped, and the marker gives its length in bytes). The footer says which lines were shown, the total line count when the whole file was read, and the offset that continues the read. Only what the page needs is read, so large files are cheap to page through, even at a deep offset.
- Line numbers are for orientation only: never include them (or the tab after them) in edit_file strings.
- CRLF files are shown without the \\r (the footer says so); edit_file accepts LF text for them.
- Text that is not UTF-8 is decoded in its detected encoding (UTF-16 with a BOM, otherwise Windows-1252/Latin-1) and the footer names it; edit_file keeps that encoding.
- PNG, JPEG, GIF and WebP images (up to 5 MB) are returned as images. Other binary files are not shown: you get their type and size. A directory, a missing file and a path outside the workspace are distinct errors; use glob to list files.`

/** Input of read_file. */
export const ReadFileInput = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root or absolute inside it'),
  offset: z.number().int().min(1).optional().describe('1-based line number to start reading at (default 1)'),
  limit: z.number().int().min(1).optional().describe(`Maximum number of lines to return (default ${READ_DEFAULT_LIMIT})`)
})

/** read_file: numbered lines of a text file, windowed and capped. */
export const readFileTool = defineTool({
  name: 'read_file',
  description,
  inputSchema: ReadFileInput,
  async execute(input, ctx) {
    const target = await resolveWorkspacePath(ctx.guest, input.path)
    if (!target.exists) throw new ToolError(`File not found: ${target.display} (no such file or directory in the workspace).${nearHint(target)}`)
    const stat = await ctx.guest.stat(target.real).catch((err: unknown) => rethrowGuestError(err, target.display))
    if (stat.type === 'dir') throw new ToolError(`${target.display} is a directory, not a file. Use glob to list its files.`)
    if (stat.type !== 'file') throw new ToolError(`${target.display} is not a regular file (a FIFO, socket or device); read_file only reads regular files.`)
    const out = await readWindow(ctx, target.real, target.display, input.offset ?? 1, input.limit ?? READ_DEFAULT_LIMIT)
    if (typeof out !== 'string') return readImage(ctx, target.real, target.display, out)
    return { output: target.note ? `${out}\n${target.note}` : out }
  }
})

/** What the next read asks the agent for: bytes at `pos`, or the start of line `to` (a newline scan). */
interface Jump {
  to: number
  /** The line that byte `pos` lies in. */
  from: number
  /** A line in the window cut at {@link MAX_LINE_CHARS}: shown once the scan tells where it ends. */
  cut?: { head: string; startByte: number }
}

/**
 * Read lines `[offset, offset+limit)` within the character budget. Small files (and UTF-16 ones) are
 * read chunk by chunk from byte 0; in a file over {@link JUMP_MIN_BYTES} the agent's newline scan
 * skips to the window (lines before it are never sent) and past a line longer than
 * {@link MAX_LINE_CHARS}, which is shown cut.
 * @param forced decode as this encoding (used to restart as Windows-1252 when invalid UTF-8 turns up late)
 * @returns the numbered lines plus a footer, or a binary/empty notice
 * @throws ToolError for an offset past the end, or a window the scan could not reach
 */
async function readWindow(
  ctx: ToolContext,
  real: string,
  display: string,
  offset: number,
  limit: number,
  forced?: TextEncodingName
): Promise<string | ImageFound> {
  const end = offset + limit // exclusive
  const budget = MAX_RESULT_CHARS - FOOTER_RESERVE
  const scan: Scan = { lineNo: 0, shown: [], chars: 0, firstShown: 0, lastShown: 0, cappedAt: 0, crlf: false, longCut: 0 }
  const hash = createHash('sha256')
  let hashed = 0
  let jumped = false
  let encoding: TextEncodingName = forced ?? 'utf-8'
  let decoder = streamDecoder(encoding)
  let pending = ''
  let pos = 0
  let lineStart = 0 // byte offset where the line in `pending` starts
  let size = 0
  let eof = false
  let chunkBytes = FIRST_CHUNK_BYTES
  let bom = false
  let jump: Jump | undefined

  const take = (raw: string, note?: string): void => {
    scan.lineNo++
    const n = scan.lineNo
    if (n < offset || n >= end || scan.cappedAt) return
    let line = raw
    if (line.endsWith('\r')) {
      line = line.slice(0, -1)
      scan.crlf = true
    }
    const text = numberLine(n, note ? `${line}… ${note}` : truncateLine(line))
    if (scan.chars + text.length + 1 > budget && scan.shown.length > 0) {
      scan.cappedAt = n
      return
    }
    scan.shown.push(text)
    scan.chars += text.length + 1
    if (!scan.firstShown) scan.firstShown = n
    scan.lastShown = n
  }
  const read = async (): Promise<ReadResult> => {
    const req = jump
      ? { op: 'read' as const, path: real, offset: pos, offsetLine: jump.from, fromLine: jump.to, maxBytes: chunkBytes, maxScanBytes: MAX_AGENT_SCAN_BYTES }
      : { op: 'read' as const, path: real, offset: pos, maxBytes: chunkBytes }
    return (await ctx.guest.call(req, { signal: ctx.signal }).catch((err: unknown) => rethrowGuestError(err, display))) as ReadResult
  }

  while (!eof) {
    ctx.signal.throwIfAborted()
    const chunk = await read()
    const bytes = fromBase64(chunk.dataB64)
    size = chunk.size
    eof = chunk.eof || bytes.length === 0
    if (jump) {
      if (chunk.scanCapped) {
        throw new ToolError(
          `${display} (${formatBytes(size)}) is too large to scan to line ${jump.to} with read_file. ` +
            `Use bash instead, e.g. sed -n '${offset},${end - 1}p' ${shellQuote(display)}.`
        )
      }
      const reached = (chunk.line ?? 0) >= jump.to
      if (jump.cut) {
        const lineEnd = reached ? (chunk.offset ?? size) - 1 : size
        take(jump.cut.head, `[line truncated: ${thousands(lineEnd - jump.cut.startByte)} bytes; the rest was skipped]`)
        scan.longCut++
      }
      scan.lineNo = reached ? jump.to - 1 : (chunk.line ?? scan.lineNo)
      pos = chunk.offset ?? size
      lineStart = pos
      pending = ''
      decoder = streamDecoder(encoding, true)
      jumped = true
      jump = undefined
      if (!reached) break
    }
    if (pos === 0) {
      if (size === 0) {
        rememberSeen(ctx.guest, real, { bytes: 0, sha256: hash.digest('hex'), complete: true })
        return `(${display} is empty: 0 bytes.)`
      }
      const image = sniffImage(bytes)
      if (image) return { image, size }
      const binary = sniffBinary(bytes)
      if (binary) {
        return `(${display} is a binary file: ${binary}, ${size} bytes (${formatBytes(size)}). Its content is not shown; use bash (e.g. file, xxd | head) to inspect it.)`
      }
      bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
      if (!forced) {
        encoding = detectEncoding(bytes, eof)
        decoder = streamDecoder(encoding)
      }
    }
    if (!jumped) {
      hash.update(bytes)
      hashed += bytes.length
    }
    const lastNl = bytes.lastIndexOf(0x0a)
    if (lastNl !== -1) lineStart = pos + lastNl + 1
    pos += bytes.length
    let text: string
    try {
      text = pending + decoder.decode(bytes, eof)
    } catch {
      // not valid UTF-8 after all: read it again as windows-1252 (every byte decodes)
      if (encoding === 'utf-8') return readWindow(ctx, real, display, offset, limit, 'windows-1252')
      throw new ToolError(`${display} starts with a ${encodingLabel(encoding)} byte-order mark but is not valid ${encodingLabel(encoding)}; use bash (e.g. xxd) to inspect it.`)
    }
    const parts = text.split('\n')
    pending = parts.pop() ?? ''
    for (const part of parts) take(part)
    const windowDone = scan.lineNo >= end - 1 || scan.cappedAt > 0
    if (!eof && windowDone) break
    const canJump = size > JUMP_MIN_BYTES && encoding !== 'utf-16le' && encoding !== 'utf-16be'
    if (!eof && canJump && scan.lineNo + 1 < offset) {
      jump = { to: offset, from: scan.lineNo + 1 }
    } else if (!eof && canJump && pending.length > MAX_LINE_CHARS) {
      jump = { to: scan.lineNo + 2, from: scan.lineNo + 1, cut: { head: pending.slice(0, MAX_LINE_CHARS), startByte: lineStart } }
    } else if (!eof && pos >= MAX_SCAN_BYTES) {
      if (scan.shown.length > 0) break
      throw new ToolError(
        `${display} is too large (${formatBytes(size)}) to page to line ${offset} with read_file. ` +
          `Use bash instead, e.g. sed -n '${offset},${end - 1}p' ${shellQuote(display)}.`
      )
    }
    chunkBytes = Math.min(chunkBytes * 2, MAX_CHUNK_BYTES)
  }
  if (eof && pending !== '') take(pending)
  const total = eof ? scan.lineNo : undefined
  rememberSeen(ctx.guest, real, { bytes: hashed, sha256: hash.digest('hex'), complete: eof && !jumped })

  if (scan.shown.length === 0) {
    throw new ToolError(`offset ${offset} is past the end of ${display}, which has ${scan.lineNo} line${scan.lineNo === 1 ? '' : 's'}.`)
  }
  return `${scan.shown.join('\n')}\n\n${footer(scan, total, size, display, encoding, bom)}`
}

/** Single-quote a path for a shell hint. */
function shellQuote(s: string): string {
  return `'${s.split("'").join(`'\\''`)}'`
}
