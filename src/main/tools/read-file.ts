/**
 * read_file: show a window of a text file's lines, numbered `cat -n` style, read from the guest in
 * chunks. Bounded by a line limit and a character cap; a footer gives the total line count and the
 * offset to continue from. Binary files (a NUL byte near the start) get a size notice instead of
 * their bytes. Directories, missing files, special files and paths outside the workspace are
 * distinct ToolErrors.
 */
import { z } from 'zod'
import type { Guest } from '../guest/guest'
import { defineTool, ToolError, type ToolContext } from './tool'
import { resolveWorkspacePath } from './paths'
import { rethrowGuestError } from './guest-errors'
import { formatBytes, MAX_RESULT_CHARS, truncateLine } from './limits'
import { fromBase64, looksBinary, numberLine } from './text'

/** Default number of lines shown when `limit` is not given. */
export const READ_DEFAULT_LIMIT = 2_000
/** Bytes requested from the guest per read call. */
const CHUNK_BYTES = 1024 * 1024
/** Past this many bytes scanned (and with the window collected) the total line count is not computed. */
const COUNT_SCAN_BYTES = 16 * 1024 * 1024
/** Reading stops here even if the requested window was not reached (use bash for larger files). */
const MAX_SCAN_BYTES = 128 * 1024 * 1024
/** Characters kept free under {@link MAX_RESULT_CHARS} for the footer. */
const FOOTER_RESERVE = 600

const description = `Read a text file from the workspace. Returns its lines numbered like \`cat -n\` (line number, a tab, then the line).

- path: relative to the workspace root, or absolute inside the workspace.
- offset: 1-based line to start at (default 1). limit: how many lines (default ${READ_DEFAULT_LIMIT}).
- Output is also capped at about ${MAX_RESULT_CHARS.toLocaleString('en-US')} characters, and a line longer than 2,000 characters is cut. The footer says how many lines the file has and which offset continues the read.
- Line numbers are for orientation only: never include them (or the tab after them) in edit_file strings.
- CRLF files are shown without the \\r; edit_file accepts LF text for them.
- Binary files are not shown; you get their size. Directories are an error: use glob to list files.`

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
    if (!target.exists) throw new ToolError(`File not found: ${target.display}`)
    const stat = await ctx.guest.stat(target.real).catch((err: unknown) => rethrowGuestError(err, target.display))
    if (stat.type === 'dir') throw new ToolError(`${target.display} is a directory, not a file. Use glob to list its files.`)
    if (stat.type !== 'file') throw new ToolError(`${target.display} is not a regular file (device, socket or FIFO); it cannot be read.`)
    if (stat.size === 0) return { output: `(${target.display} is empty: 0 bytes.)` }
    return { output: await readWindow(ctx, target.real, target.display, input.offset ?? 1, input.limit ?? READ_DEFAULT_LIMIT) }
  }
})

/** State of the line scan while chunks arrive. */
interface Scan {
  lineNo: number
  shown: string[]
  chars: number
  firstShown: number
  lastShown: number
  /** First line of the window that was not shown because of the character cap (0 = none). */
  cappedAt: number
  crlf: boolean
}

/**
 * Scan the file chunk by chunk, keeping lines `[offset, offset+limit)` within the character budget.
 * @returns the numbered lines plus a footer
 * @throws ToolError for an offset past the end, or a window beyond {@link MAX_SCAN_BYTES}
 */
async function readWindow(ctx: ToolContext, real: string, display: string, offset: number, limit: number): Promise<string> {
  const guest: Guest = ctx.guest
  const end = offset + limit // exclusive
  const budget = MAX_RESULT_CHARS - FOOTER_RESERVE
  const scan: Scan = { lineNo: 0, shown: [], chars: 0, firstShown: 0, lastShown: 0, cappedAt: 0, crlf: false }
  const decoder = new TextDecoder('utf-8')
  let pending = ''
  let pos = 0
  let size = 0
  let eof = false

  const take = (raw: string): void => {
    scan.lineNo++
    const n = scan.lineNo
    if (n < offset || n >= end || scan.cappedAt) return
    let line = raw
    if (line.endsWith('\r')) {
      line = line.slice(0, -1)
      scan.crlf = true
    }
    const text = numberLine(n, truncateLine(line))
    if (scan.chars + text.length + 1 > budget && scan.shown.length > 0) {
      scan.cappedAt = n
      return
    }
    scan.shown.push(text)
    scan.chars += text.length + 1
    if (!scan.firstShown) scan.firstShown = n
    scan.lastShown = n
  }

  while (!eof) {
    ctx.signal.throwIfAborted()
    const chunk = await guest.read(real, { offset: pos, maxBytes: CHUNK_BYTES }).catch((err: unknown) => rethrowGuestError(err, display))
    const bytes = fromBase64(chunk.dataB64)
    size = chunk.size
    if (pos === 0 && looksBinary(bytes)) {
      return `(${display} is a binary file of ${size} bytes (${formatBytes(size)}); its content is not shown. Use bash (e.g. xxd, file) to inspect it.)`
    }
    pos += bytes.length
    eof = chunk.eof || bytes.length === 0
    const text = pending + decoder.decode(bytes, { stream: !eof })
    const parts = text.split('\n')
    pending = parts.pop() ?? ''
    for (const part of parts) take(part)
    const windowDone = scan.lineNo >= end - 1 || scan.cappedAt > 0
    if (!eof && windowDone && pos >= COUNT_SCAN_BYTES) break
    if (!eof && pos >= MAX_SCAN_BYTES) {
      if (windowDone || scan.shown.length > 0) break
      throw new ToolError(
        `${display} is too large (${formatBytes(size)}) to page to line ${offset} with read_file. ` +
          `Use bash instead, e.g. sed -n '${offset},${end - 1}p' ${shellQuote(display)}.`
      )
    }
  }
  if (eof && pending !== '') take(pending)
  const total = eof ? scan.lineNo : undefined

  if (scan.shown.length === 0) {
    throw new ToolError(`offset ${offset} is past the end of ${display}, which has ${scan.lineNo} line${scan.lineNo === 1 ? '' : 's'}.`)
  }
  return `${scan.shown.join('\n')}\n\n${footer(scan, total, size, display)}`
}

/** The footer: which lines were shown, the total, and how to continue. */
function footer(scan: Scan, total: number | undefined, size: number, display: string): string {
  const range = `lines ${scan.firstShown}–${scan.lastShown}`
  const of = total !== undefined ? ` of ${total}` : ''
  const crlf = scan.crlf ? ' Line endings are CRLF (\\r not shown).' : ''
  const next = `To continue, call read_file with offset=${scan.lastShown + 1}.`
  if (scan.cappedAt) {
    return `(${display}: output capped at ${MAX_RESULT_CHARS.toLocaleString('en-US')} characters; showing ${range}${of}. ${next}${crlf})`
  }
  if (total !== undefined && scan.lastShown >= total) {
    const whole = scan.firstShown === 1 ? `end of file, all ${total} lines shown` : `showing ${range}${of}; end of file`
    return `(${display}: ${whole}.${crlf})`
  }
  const unknown = total === undefined ? `; the file is ${formatBytes(size)}, so the total line count was not computed` : ''
  return `(${display}: showing ${range}${of}${unknown}. ${next}${crlf})`
}

/** Single-quote a path for a shell hint. */
function shellQuote(s: string): string {
  return `'${s.split("'").join(`'\\''`)}'`
}
