/**
 * write_file: write a whole file with exactly the UTF-8 bytes of `content`, through the guest
 * agent's atomic write (temp file + rename, parents created, an existing file's mode kept).
 * The result states the bytes written and whether the file was created or replaced.
 */
import { z } from 'zod'
import { defineTool, ToolError } from './tool'
import { resolveWorkspacePath } from './paths'
import { rethrowGuestError } from './guest-errors'
import { encodeUtf8 } from './text'

const description = `Write a file in the workspace, replacing it entirely if it exists. Parent directories are created.

- path: relative to the workspace root, or absolute inside the workspace.
- content: the complete new file content, written exactly as given (UTF-8, no newline added or converted).
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
      const stat = await ctx.guest.stat(target.real).catch((err: unknown) => rethrowGuestError(err, target.display))
      if (stat.type === 'dir') throw new ToolError(`${target.display} is a directory; give a file path.`)
      if (stat.type !== 'file') throw new ToolError(`${target.display} is not a regular file; it cannot be written.`)
    }
    ctx.signal.throwIfAborted()
    const bytes = encodeUtf8(input.content)
    const res = await ctx.guest.write(target.real, bytes).catch((err: unknown) => rethrowGuestError(err, target.display))
    if (res.size !== bytes.length) {
      throw new ToolError(`Writing ${target.display} went wrong: ${bytes.length} bytes sent but ${res.size} bytes on disk.`)
    }
    const verb = target.exists ? 'Overwrote' : 'Created'
    return { output: `${verb} ${target.display}: wrote ${res.size} bytes.` }
  }
})
