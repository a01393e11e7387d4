/**
 * edit_file: exact string replacement in one existing text file. Reads the whole file from the
 * guest, applies {@link applyEdit} (literal insertion, CRLF adaptation, count checks) and writes the
 * result back atomically. A failed edit leaves the file byte-identical.
 */
import { z } from 'zod'
import type { Guest } from '../guest/guest'
import { defineTool, ToolError } from './tool'
import { resolveWorkspacePath } from './paths'
import { rethrowGuestError } from './guest-errors'
import { applyEdit } from './edit-logic'
import { formatBytes } from './limits'
import { decodeUtf8Strict, encodeUtf8, fromBase64, looksBinary } from './text'

/** Largest file edit_file will load, in bytes. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024
const CHUNK_BYTES = 4 * 1024 * 1024

const description = `Replace exact text in an existing file.

- path: relative to the workspace root, or absolute inside the workspace.
- old_string must match the file's current text exactly, including whitespace and indentation (never include read_file's line-number prefixes). Copy it from a recent read_file.
- By default old_string must occur exactly once: include enough surrounding lines to make it unique. If it occurs several times the error lists the line numbers; set replace_all to true to replace every occurrence (e.g. renaming).
- new_string is inserted literally (no regex or $-substitutions). It must differ from old_string.
- Files with CRLF line endings can be edited with LF text: the match and the replacement use the file's CRLF endings.
- To create a new file, or rewrite one completely, use write_file.`

/** Input of edit_file. */
export const EditFileInput = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root or absolute inside it'),
  old_string: z.string().min(1).describe('The exact text to replace'),
  new_string: z.string().describe('The replacement text (inserted literally)'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false: it must be unique)')
})

/** edit_file: exact, literal string replacement with count checks. */
export const editFileTool = defineTool({
  name: 'edit_file',
  description,
  inputSchema: EditFileInput,
  async execute(input, ctx) {
    const target = await resolveWorkspacePath(ctx.guest, input.path)
    if (!target.exists) throw new ToolError(`File not found: ${target.display}. To create a file use write_file.`)
    const stat = await ctx.guest.stat(target.real).catch((err: unknown) => rethrowGuestError(err, target.display))
    if (stat.type === 'dir') throw new ToolError(`${target.display} is a directory, not a file.`)
    if (stat.type !== 'file') throw new ToolError(`${target.display} is not a regular file; it cannot be edited.`)
    if (stat.size > MAX_EDIT_BYTES) {
      throw new ToolError(`${target.display} is ${formatBytes(stat.size)}, over the ${formatBytes(MAX_EDIT_BYTES)} edit_file limit. Use bash (e.g. sed) instead.`)
    }

    const bytes = await readAll(ctx.guest, target.real, target.display)
    if (looksBinary(bytes)) throw new ToolError(`${target.display} is a binary file; edit_file only edits text.`)
    const content = decodeUtf8Strict(bytes)
    if (content === null) throw new ToolError(`${target.display} is not valid UTF-8 text; edit_file cannot edit it safely. Use bash instead.`)

    const outcome = applyEdit(content, input.old_string, input.new_string, input.replace_all ?? false, target.display)
    ctx.signal.throwIfAborted()
    const out = encodeUtf8(outcome.content)
    const res = await ctx.guest.write(target.real, out).catch((err: unknown) => rethrowGuestError(err, target.display))
    if (res.size !== out.length) {
      throw new ToolError(`Writing ${target.display} went wrong: ${out.length} bytes sent but ${res.size} bytes on disk.`)
    }

    const n = outcome.replacements
    const where = `line${outcome.lines.length === 1 ? '' : 's'} ${summariseLines(outcome.lines)}`
    const endings =
      outcome.adaptedLineEndings === 'crlf'
        ? ' old_string/new_string were matched using the file\'s CRLF line endings, which are kept.'
        : outcome.adaptedLineEndings === 'lf'
          ? ' old_string/new_string were matched using the file\'s LF line endings.'
          : ''
    return { output: `Replaced ${n} occurrence${n === 1 ? '' : 's'} in ${target.display} (at ${where}).${endings}` }
  }
})

/**
 * Read a whole file (≤ {@link MAX_EDIT_BYTES}) from the guest, chunk by chunk.
 * @throws ToolError for guest errors, or when the file grows past the limit while being read
 */
async function readAll(guest: Guest, real: string, display: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let pos = 0
  for (;;) {
    const r = await guest.read(real, { offset: pos, maxBytes: CHUNK_BYTES }).catch((err: unknown) => rethrowGuestError(err, display))
    const bytes = fromBase64(r.dataB64)
    chunks.push(bytes)
    pos += bytes.length
    if (r.eof || bytes.length === 0) break
    if (pos > MAX_EDIT_BYTES) throw new ToolError(`${display} grew past the ${formatBytes(MAX_EDIT_BYTES)} edit_file limit while being read.`)
  }
  const all = new Uint8Array(pos)
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.length
  }
  return all
}

/** `2, 4` — at most 10 numbers, then `… (N in all)`. */
function summariseLines(lines: number[]): string {
  return lines.length > 10 ? `${lines.slice(0, 10).join(', ')}, … (${lines.length} in all)` : lines.join(', ')
}
