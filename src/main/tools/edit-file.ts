/**
 * edit_file: exact string replacement in one existing text file, single (`old_string`/`new_string`)
 * or multi (`edits`, applied in order, all or nothing). Under a per-path lock (parallel edits of one
 * file run one after the other and both land) it reads the whole file, detects its encoding (UTF-8
 * with or without BOM, UTF-16 by BOM, else Windows-1252/Latin-1) and refuses unless decode → encode
 * gives the same bytes back, checks that the file has not changed since the model last saw it
 * (content hash from read_file/write_file/edit_file), applies the edits on the text, re-encodes in
 * the same encoding and writes atomically, verifying size and sha256. A failed edit writes nothing,
 * so the file stays byte-identical with the same mtime.
 */
import { z } from 'zod'
import type { Guest } from '../guest/guest'
import { defineTool, ToolError } from './tool'
import { nearHint, resolveWorkspacePath } from './paths'
import { rethrowGuestError } from './guest-errors'
import { applyEdits, findOccurrences, type EditsOutcome, type EditSpec } from './edit-logic'
import { closestRegion, renderRegion } from './edit-hints'
import { formatBytes } from './limits'
import { fileDiff } from './file-diff'
import { fromBase64, lineNumberAt } from './text'
import { codecFor, detectEncoding, encodingLabel, sniffBinary, BINARY_SNIFF_BYTES } from './encoding'
import { isStale, lastSeen, rememberWhole, sha256Hex, withPathLock } from './guest-state'

/** Largest file edit_file will load, in bytes. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024
const CHUNK_BYTES = 4 * 1024 * 1024
/** Lines of context shown around a region (stale-file notice, result snippet). */
const CONTEXT_LINES = 3

const description = `Replace exact text in an existing file. Either old_string/new_string (with optional replace_all), or edits: a list of {old_string, new_string, replace_all?} applied in order, each to the result of the previous one, all or nothing.

- path: relative to the workspace root, or absolute inside the workspace.
- old_string must match the file's current text exactly, including whitespace and indentation (never include read_file's line-number prefixes). Copy it from a recent read_file.
- By default old_string must occur exactly once: include enough surrounding lines to make it unique. If it occurs several times the error gives the count and the line numbers; set replace_all to true to replace every occurrence (e.g. renaming). If it is not found, the error shows the closest region of the file with line numbers.
- new_string is inserted literally (no regex or $-substitutions). An edit that changes nothing is an error.
- Line endings, a byte-order mark, the file's encoding (UTF-8, UTF-16, Windows-1252/Latin-1) and every byte outside the replaced text are kept. CRLF files can be edited with LF text.
- If the file changed on disk since you last read or wrote it, the edit is not applied: the error shows the current text of the region; check it and retry.
- A failed edit leaves the file untouched. To create a new file, or rewrite one completely, use write_file.`

const EditSpecSchema = z.object({
  old_string: z.string().min(1).describe('The exact text to replace'),
  new_string: z.string().describe('The replacement text (inserted literally)'),
  replace_all: z.boolean().optional().describe('Replace every occurrence (default false: it must be unique)')
})

/** Input of edit_file: a single edit, or `edits` (not both). */
export const EditFileInput = z
  .object({
    path: z.string().min(1).describe('File path, relative to the workspace root or absolute inside it'),
    old_string: z.string().min(1).optional().describe('The exact text to replace (single-edit form)'),
    new_string: z.string().optional().describe('The replacement text, inserted literally (single-edit form)'),
    replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false: it must be unique)'),
    edits: z.array(EditSpecSchema).min(1).max(100).optional().describe('Multi-edit form: edits applied in order, all or nothing')
  })
  .superRefine((v, ctx) => {
    const single = v.old_string !== undefined || v.new_string !== undefined
    if (v.edits && single) ctx.addIssue({ code: 'custom', message: 'give either old_string/new_string or edits, not both' })
    if (!v.edits && (v.old_string === undefined || v.new_string === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'old_string and new_string are required (or give edits: [{old_string, new_string}])' })
    }
  })

/** edit_file: exact, literal string replacement with count checks, encoding- and staleness-aware. */
export const editFileTool = defineTool({
  name: 'edit_file',
  description,
  inputSchema: EditFileInput,
  async execute(input, ctx) {
    const edits: EditSpec[] = input.edits ?? [
      { old_string: input.old_string ?? '', new_string: input.new_string ?? '', replace_all: input.replace_all }
    ]
    const target = await resolveWorkspacePath(ctx.guest, input.path)
    if (!target.exists) throw new ToolError(`File not found: ${target.display}.${nearHint(target)} To create a file use write_file.`)
    return withPathLock(ctx.guest, target.real, async () => {
      const { real, display } = target
      const stat = await ctx.guest.stat(real).catch((err: unknown) => rethrowGuestError(err, display))
      if (stat.type === 'dir') throw new ToolError(`${display} is a directory, not a file.`)
      if (stat.type !== 'file') throw new ToolError(`${display} is not a regular file; it cannot be edited.`)
      if (stat.size > MAX_EDIT_BYTES) {
        throw new ToolError(`${display} is ${formatBytes(stat.size)}, over the ${formatBytes(MAX_EDIT_BYTES)} edit_file limit. Use bash (e.g. sed) instead.`)
      }

      const bytes = await readAll(ctx.guest, real, display)
      const binary = sniffBinary(bytes.subarray(0, BINARY_SNIFF_BYTES))
      if (binary) throw new ToolError(`${display} is a binary file (${binary}); edit_file only edits text.`)
      const codec = codecFor(detectEncoding(bytes, true))
      const label = encodingLabel(codec.encoding)
      const content = codec.decode(bytes)
      const back = content === null ? null : codec.encode(content)
      if (content === null || !back || !('bytes' in back) || !sameBytes(back.bytes, bytes)) {
        throw new ToolError(`${display} cannot be edited byte-faithfully as ${label} (it does not decode and re-encode to the same bytes). Use bash instead.`)
      }

      if (isStale(lastSeen(ctx.guest, real), bytes)) {
        rememberWhole(ctx.guest, real, bytes)
        throw new ToolError(staleMessage(content, edits[0]?.old_string ?? '', display))
      }

      const result = applyEdits(content, edits, display)
      const encoded = codec.encode(result.content)
      if (!('bytes' in encoded)) {
        const chars = encoded.unencodable.map((c) => `${JSON.stringify(c)} (U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')})`)
        throw new ToolError(`${display} is ${label}, which cannot hold ${chars.join(', ')}; nothing was written. Use characters the encoding has, or convert the file with bash (iconv) first.`)
      }
      const out = encoded.bytes
      ctx.signal.throwIfAborted()
      ctx.beforeSideEffect?.() // a mode switch during the checks above: not written (ADR 0019)
      const res = await ctx.guest.write(real, out).catch((err: unknown) => rethrowGuestError(err, display, ctx.guest.sandbox))
      if (res.size !== out.length || res.sha256 !== sha256Hex(out)) {
        throw new ToolError(`Writing ${display} went wrong: ${out.length} bytes sent but ${res.size} bytes with a different hash on disk. Read the file before trying again.`)
      }
      rememberWhole(ctx.guest, real, out)
      const done = successMessage(result, display, codec.encoding !== 'utf-8' ? label : '')
      return { output: target.note ? `${done}\n${target.note}` : done, diff: fileDiff(display, content, result.content) }
    })
  }
})

/** The stale-file error: says the file changed and shows the current text where the edit would go. */
function staleMessage(content: string, oldString: string, display: string): string {
  const hit = oldString ? findOccurrences(content, oldString)[0] : undefined
  let region: string
  if (hit !== undefined) {
    const first = lineNumberAt(content, hit)
    const last = lineNumberAt(content, hit + oldString.length)
    region = `Its current text around the edit (old_string is still there):\n${renderRegion(content, first - CONTEXT_LINES, last + CONTEXT_LINES)}`
  } else {
    const near = closestRegion(content, oldString)
    region = near
      ? `old_string is no longer there as given; the closest current text is:\n${renderRegion(content, near.startLine - CONTEXT_LINES, near.endLine + CONTEXT_LINES)}`
      : 'old_string is no longer there and no similar region was found; read the file again.'
  }
  return (
    `${display} has changed on disk since you last read or wrote it (a command, a tool or the user changed it), so the edit was not applied. ` +
    `${region}\nCheck that your edit still fits this text, then call edit_file again.`
  )
}

/** The success text: counts, lines, line-ending/encoding notes and the edited region as it now reads. */
function successMessage(result: EditsOutcome, display: string, encodingNote: string): string {
  const parts = result.outcomes.map((o) => {
    const where = `line${o.lines.length === 1 ? '' : 's'} ${summariseLines(o.lines)}`
    return `${o.replacements} occurrence${o.replacements === 1 ? '' : 's'} at ${where}`
  })
  const head =
    result.outcomes.length === 1
      ? `Replaced ${parts[0] ?? ''} in ${display}.`
      : `Applied ${result.outcomes.length} edits to ${display}: ${parts.map((p, i) => `(${i + 1}) ${p}`).join('; ')}.`
  const adapted = result.outcomes.map((o) => o.adaptedLineEndings).find((a) => a !== 'none')
  const endings =
    adapted === 'crlf'
      ? " old_string/new_string were matched using the file's CRLF line endings, which are kept."
      : adapted === 'lf'
        ? " old_string/new_string were matched using the file's LF line endings."
        : ''
  const enc = encodingNote ? ` The file's encoding (${encodingNote}) was kept.` : ''
  const last = result.outcomes[result.outcomes.length - 1]
  let snippet = ''
  if (result.outcomes.length === 1 && last && last.replacements === 1) {
    const start = last.lines[0] ?? 1
    const span = (last.replacedText.match(/\n/g) ?? []).length
    snippet = `\nThe edited region now reads:\n${renderRegion(result.content, start - CONTEXT_LINES, start + span + CONTEXT_LINES)}`
  }
  return `${head}${endings}${enc}${snippet}`
}

/** Byte equality of two arrays. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))
}

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
  return Buffer.concat(chunks)
}

/** `2, 4` — at most 10 numbers, then `… (N in all)`. */
function summariseLines(lines: number[]): string {
  return lines.length > 10 ? `${lines.slice(0, 10).join(', ')}, … (${lines.length} in all)` : lines.join(', ')
}
