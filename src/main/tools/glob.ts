/**
 * glob: list files matching a glob pattern, via `rg --files --hidden --glob PATTERN --glob !.git`
 * spawned in the guest (argv, no shell). Files ignored by .gitignore are left out; the .git
 * directory is always left out. Results are sorted by path name (rg `--sort path`), relative to the
 * workspace root, and capped at {@link GLOB_MAX_RESULTS} with "showing N of M".
 */
import { z } from 'zod'
import { defineTool, ToolError } from './tool'
import { resolveWorkspacePath } from './paths'
import { rethrowGuestError } from './guest-errors'
import { dirPrefix, relocate, runRipgrep } from './ripgrep'
import { capHead } from './limits'

/** Most file paths one glob result lists. */
export const GLOB_MAX_RESULTS = 500

const description = `Find files by name with a glob pattern. Returns matching file paths relative to the workspace root, sorted by path name, at most ${GLOB_MAX_RESULTS}.

- pattern: a glob matched against paths relative to \`path\`. A pattern without "/" matches a file name in any directory ("*.ts"); use "**" to cross directories ("src/**/*.test.ts"); braces are supported ("*.{js,ts}").
- path: directory to search (default: the workspace root).
- Hidden files are included; files ignored by .gitignore and the .git directory are not. Only files are listed, not directories.`

/** Input of glob. */
export const GlobInput = z.object({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/**/index.{js,ts}"'),
  path: z.string().min(1).optional().describe('Directory to search in, relative to the workspace root (default: the root)')
})

/** glob: file paths matching a pattern, sorted by path, capped. */
export const globTool = defineTool({
  name: 'glob',
  description,
  inputSchema: GlobInput,
  async execute(input, ctx) {
    const dir = await resolveWorkspacePath(ctx.guest, input.path)
    if (!dir.exists) throw new ToolError(`Directory not found: ${dir.display}`)
    const stat = await ctx.guest.stat(dir.real).catch((err: unknown) => rethrowGuestError(err, dir.display))
    if (stat.type !== 'dir') throw new ToolError(`${dir.display} is not a directory; glob searches directories.`)

    const rg = await runRipgrep(
      ctx,
      ['--files', '--hidden', '--sort', 'path', `--glob=${input.pattern}`, '--glob=!.git', '.'],
      dir.real
    )
    const where = dir.display === '.' ? 'the workspace' : dir.display
    if (rg.lines.length === 0) return { output: `No files match ${JSON.stringify(input.pattern)} in ${where}.` }

    const prefix = dirPrefix(dir.display)
    const shown = rg.lines.slice(0, GLOB_MAX_RESULTS).map((l) => relocate(l, prefix))
    const total = rg.lines.length
    const notes: string[] = []
    if (rg.truncated) {
      notes.push(`(Showing the first ${shown.length} of more than ${total} files: the listing was too large to count. Narrow the pattern or path.)`)
    } else if (total > shown.length) {
      notes.push(`(Showing ${shown.length} of ${total} files, sorted by path. Narrow the pattern or path to see the rest.)`)
    } else {
      notes.push(`(${total} file${total === 1 ? '' : 's'}, sorted by path.)`)
    }
    if (rg.warnings) notes.push(`(Some paths could not be read: ${rg.warnings})`)
    return { output: capHead(`${shown.join('\n')}\n\n${notes.join('\n')}`) }
  }
})
