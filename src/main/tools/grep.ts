/**
 * grep: search file contents with a regular expression, via ripgrep in the guest (argv, no shell)
 * with `--line-number --no-heading --color never --hidden --glob !.git`. Output lines are
 * `path:line:text` (context lines `path-line-text`), paths relative to the workspace root, sorted by
 * path, capped at {@link GREP_MAX_LINES} lines with a notice. Exit status 1 is a plain "No matches"
 * result; a bad regex is a ToolError carrying rg's message.
 */
import { z } from 'zod'
import { defineTool, ToolError } from './tool'
import { resolveWorkspacePath, workspaceRoot } from './paths'
import { rethrowGuestError } from './guest-errors'
import { dirPrefix, relocate, runRipgrep } from './ripgrep'
import { capHead } from './limits'

/** Most output lines (matches plus context) one grep result shows. */
export const GREP_MAX_LINES = 500
/** Longest line ripgrep prints in full, in bytes; longer ones are shown as a preview. */
const MAX_COLUMNS = 500

const description = `Search file contents with a regular expression (ripgrep / Rust regex syntax). Returns matching lines as "path:line:text", paths relative to the workspace root, sorted by path, at most ${GREP_MAX_LINES} lines.

- pattern: a regular expression, e.g. "function\\s+\\w+" or "TODO". Escape regex metacharacters to search literal text (e.g. "foo\\(" for "foo(").
- path: a directory or a single file to search (default: the workspace root).
- glob: only search files whose path (relative to \`path\`) matches this glob, e.g. "*.ts" or "src/**/*.py".
- case_insensitive: ignore letter case. context: lines of context before and after each match (shown as "path-line-text", groups separated by "--").
- Hidden files are searched; files ignored by .gitignore and the .git directory are not. Lines over ${MAX_COLUMNS} bytes are shortened.`

/** Input of grep. */
export const GrepInput = z.object({
  pattern: z.string().min(1).describe('Regular expression to search for (Rust regex syntax)'),
  path: z.string().min(1).optional().describe('File or directory to search, relative to the workspace root (default: the root)'),
  glob: z.string().min(1).optional().describe('Only search files matching this glob, e.g. "*.ts"'),
  case_insensitive: z.boolean().optional().describe('Case-insensitive search (default false)'),
  context: z.number().int().min(0).max(20).optional().describe('Lines of context around each match (0–20, default 0)')
})

/** grep: regex search over the workspace, capped. */
export const grepTool = defineTool({
  name: 'grep',
  description,
  inputSchema: GrepInput,
  async execute(input, ctx) {
    const target = await resolveWorkspacePath(ctx.guest, input.path)
    if (!target.exists) throw new ToolError(`No such file or directory: ${target.display}`)
    const stat = await ctx.guest.stat(target.real).catch((err: unknown) => rethrowGuestError(err, target.display))
    const isDir = stat.type === 'dir'

    const args = [
      '--line-number',
      '--no-heading',
      '--with-filename',
      '--color',
      'never',
      '--hidden',
      '--sort',
      'path',
      '--max-columns',
      String(MAX_COLUMNS),
      '--max-columns-preview',
      '--glob=!.git'
    ]
    if (input.case_insensitive) args.push('--ignore-case')
    if (input.context) args.push('--context', String(input.context))
    if (input.glob) args.push(`--glob=${input.glob}`)
    // `--opt=value` keeps a value that starts with '-' from being read as a flag.
    args.push(`--regexp=${input.pattern}`)
    // A directory is searched as `.` from inside it (globs are relative to it); a file from the root.
    const root = isDir ? target.real : await workspaceRoot(ctx.guest)
    args.push('--', isDir ? '.' : target.display)

    const rg = await runRipgrep(ctx, args, root)
    const where = target.display === '.' ? 'the workspace' : target.display
    if (rg.lines.length === 0) return { output: `No matches for ${JSON.stringify(input.pattern)} in ${where}.` }

    const prefix = isDir ? dirPrefix(target.display) : ''
    const shown = rg.lines.slice(0, GREP_MAX_LINES).map((l) => relocate(l, prefix))
    const total = rg.lines.length
    const notes: string[] = []
    if (rg.truncated) {
      notes.push(`(Showing the first ${shown.length} lines of a larger result. Narrow the pattern, path or glob.)`)
    } else if (total > shown.length) {
      notes.push(`(Showing the first ${shown.length} of ${total} output lines. Narrow the pattern, path or glob to see the rest.)`)
    }
    if (rg.warnings) notes.push(`(Some files could not be searched: ${rg.warnings})`)
    const body = shown.join('\n')
    return { output: capHead(notes.length ? `${body}\n\n${notes.join('\n')}` : body) }
  }
})
