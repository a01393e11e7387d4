/**
 * write_file: write a whole file with exactly the UTF-8 bytes of `content`, through the guest
 * agent's atomic write (temp file + rename in the same directory, parents created, an existing
 * file's mode kept), under the per-path lock shared with edit_file. The agent reads the file back and
 * returns its size and sha256, which must equal those of the bytes sent. The written content is
 * remembered as seen (edit_file's stale check). A path that differs from an existing file's name
 * only by Unicode normalization or a space variant overwrites that file (with a note) instead of
 * creating a look-alike twin. Calls whose arguments were cut off by the model's
 * output limit never reach this tool (the harness refuses them).
 */
import { z } from 'zod'
import { defineTool, ToolError } from './tool'
import { resolveWorkspacePath } from './paths'
import { rethrowGuestError } from './guest-errors'
import { decodeUtf8Strict, encodeUtf8, fromBase64 } from './text'
import { rememberWhole, sha256Hex, withPathLock } from './guest-state'
import { DIFF_MAX_INPUT_CHARS, fileDiff } from './file-diff'
import { looksBinary } from './encoding'
import type { Guest } from '../guest/guest'
import type { FileDiff } from '../../shared/file-diff'

const description = `Write a file in the workspace, replacing it entirely if it exists. Parent directories are created.

- path: relative to the workspace root, or absolute inside the workspace.
- content: the complete new file content, written exactly as given (UTF-8, no newline added or converted, no BOM added). The write is atomic (a reader never sees a half-written file) and verified by reading back its size and SHA-256.
- An existing file keeps its permissions (an executable stays executable).
- A path given with \\xHH escapes (as glob and grep show names that are not UTF-8) names those bytes; write a literal backslash in such a path as \\\\.
- To change part of an existing file prefer edit_file: it is safer and cheaper than rewriting the whole file.
- Read an existing file before overwriting it so no content is lost by accident.`

/** Input of write_file. */
export const WriteFileInput = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root or absolute inside it'),
  content: z.string().describe('The complete file content to write')
})

/** write_file: atomic whole-file write of UTF-8 text. */
export const writeFileTool = defineTool({
  name: 'write_file',
  description,
  inputSchema: WriteFileInput,
  async execute(input, ctx) {
    const target = await resolveWorkspacePath(ctx.guest, input.path)
    if (target.display === '.') throw new ToolError('The path names the workspace root directory, not a file.')
    if (target.exists) {
      const stat = await ctx.guest.stat(target.real).catch((err: unknown) => rethrowGuestError(err, target.display, ctx.guest.sandbox))
      if (stat.type === 'dir') throw new ToolError(`${target.display} is a directory; give a file path.`)
      if (stat.type !== 'file') throw new ToolError(`${target.display} is not a regular file; it cannot be written.`)
    }
    ctx.signal.throwIfAborted()
    const bytes = encodeUtf8(input.content)
    const sha = sha256Hex(bytes)
    return withPathLock(ctx.guest, target.real, async () => {
      // the file as it was, for the real diff the front ends show (not for the model)
      const before = target.exists ? await oldText(ctx.guest, target.real) : null
      ctx.beforeSideEffect?.() // a mode switch during the checks above: not written (ADR 0019)
      const res = await ctx.guest.write(target.real, bytes).catch((err: unknown) => rethrowGuestError(err, target.display, ctx.guest.sandbox))
      if (res.size !== bytes.length || res.sha256 !== sha) {
        throw new ToolError(
          `Writing ${target.display} went wrong: ${bytes.length} bytes (sha256 ${sha.slice(0, 12)}…) sent but ${res.size} bytes ` +
            `(sha256 ${res.sha256.slice(0, 12)}…) read back. Read the file and try again.`
        )
      }
      rememberWhole(ctx.guest, target.real, bytes)
      const verb = target.exists ? 'Overwrote' : 'Created'
      const done = `${verb} ${target.display}: wrote ${res.size} bytes (verified by read-back).`
      const diff: FileDiff = typeof before === 'object' && before !== null ? { path: target.display, hunks: [], note: before.note } : fileDiff(target.display, before, input.content)
      return { output: target.note ? `${done}\n${target.note}` : done, diff }
    })
  }
})

/**
 * The text of the file being overwritten, for its diff: null-free UTF-8 up to the diff's input bound;
 * else a note saying why no diff is shown. A failed read is a note too (the write goes on).
 */
async function oldText(guest: Guest, real: string): Promise<string | { note: string }> {
  try {
    const r = await guest.read(real, { maxBytes: DIFF_MAX_INPUT_CHARS + 1 })
    const bytes = fromBase64(r.dataB64)
    if (!r.eof || bytes.length > DIFF_MAX_INPUT_CHARS) return { note: 'no diff shown: the old file is over 2 MB' }
    const text = looksBinary(bytes) ? null : decodeUtf8Strict(bytes)
    return text ?? { note: 'no diff shown: the old file was not UTF-8 text' }
  } catch {
    return { note: 'no diff shown: the old file could not be read' }
  }
}
