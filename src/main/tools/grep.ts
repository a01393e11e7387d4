/**
 * grep: search file contents with a regular expression, via ripgrep in the guest (argv, no shell)
 * with `--json --binary --hidden --sort path --glob !.git`, read as a live stream and formatted by
 * {@link GrepFormatter}: `path:line:text` (context `path-line-text`), paths relative to the workspace
 * root, sorted by path. Files with a NUL byte are searched and reported as a binary-match notice,
 * never as raw bytes; long lines become a window around the match with its column. At
 * {@link GREP_MAX_LINES} output lines (or the character budget) the rg process group is killed, so
 * memory and time stay bounded, and a notice says how to narrow. Exit status 1 is a plain
 * "No matches" result; a bad regex is a ToolError carrying rg's message. A FIFO, socket or device
 * named as the path is refused before rg runs (rg skips them in a walk but would block on one named
 * explicitly). Paths keep their bytes: rg's JSON `{bytes}` names are shown with `\xHH` escapes.
 */
import { z } from 'zod'
import { defineTool, ToolError } from './tool'
import { nearHint, relativeWire, resolveWorkspacePath, workspaceRoot } from './paths'
import { wireToModel } from '../../shared/path-bytes'
import { rethrowGuestError } from './guest-errors'
import { dirPrefix, relocate, runRipgrep } from './ripgrep'
import { capHead, MAX_RESULT_CHARS } from './limits'
import { thousands } from './text'
import { GREP_LINE_CHARS, GrepFormatter } from './grep-format'

/** Most output lines (matches, context, separators, notices) one grep result shows. */
export const GREP_MAX_LINES = 500
/** Characters of output lines kept; the rest of the result budget is for notices. */
const GREP_BUDGET_CHARS = MAX_RESULT_CHARS - 1_500

const description = `Search file contents with a regular expression (ripgrep / Rust regex syntax). Returns matching lines as "path:line:text", paths relative to the workspace root, sorted by path, at most ${GREP_MAX_LINES} lines (and about ${thousands(MAX_RESULT_CHARS)} characters); at the cap the search is stopped and a notice says so.

- pattern: a regular expression, e.g. "function\\s+\\w+" or "TODO". Escape regex metacharacters to search literal text (e.g. "foo\\(" for "foo("). An invalid regex is reported as an error with ripgrep's message.
- path: a directory or a single file to search (default: the workspace root).
- glob: only search files whose path (relative to \`path\`) matches this glob, e.g. "*.ts" or "src/**/*.py".
- case_insensitive: ignore letter case. context: lines of context before and after each match (shown as "path-line-text", groups separated by "--").
- Hidden files are searched; files ignored by .gitignore and the .git directory are not (name an ignored directory in path to search it).
- A file name that is not valid UTF-8 (or holds a control character) is shown with \\xHH escapes for those bytes (a backslash in it as \\\\); read_file and edit_file accept the name back in that form. FIFOs, sockets and devices are never opened.
- Files containing NUL bytes are searched too, but reported as "binary file matches" without their content. Lines over ${GREP_LINE_CHARS} characters are shown as a window around the first match with its column. Text that is not UTF-8 is shown decoded as Windows-1252 and marked.`

/** Input of grep. */
export const GrepInput = z.object({
  pattern: z.string().min(1).describe('Regular expression to search for (Rust regex syntax)'),
  path: z.string().min(1).optional().describe('File or directory to search, relative to the workspace root (default: the root)'),
  glob: z.string().min(1).optional().describe('Only search files matching this glob, e.g. "*.ts"'),
  case_insensitive: z.boolean().optional().describe('Case-insensitive search (default false)'),
  context: z.number().int().min(0).max(20).optional().describe('Lines of context around each match (0–20, default 0)')
})

/** grep: regex search over the workspace, stopped at the cap. */
export const grepTool = defineTool({
  name: 'grep',
  description,
  inputSchema: GrepInput,
  async execute(input, ctx) {
    const target = await resolveWorkspacePath(ctx.guest, input.path)
    if (!target.exists) throw new ToolError(`No such file or directory: ${target.display}${nearHint(target)}`)
    const stat = await ctx.guest.stat(target.real).catch((err: unknown) => rethrowGuestError(err, target.display))
    const isDir = stat.type === 'dir'
    // rg would open a FIFO named on its command line and wait for a writer (it skips them in a walk).
    if (stat.type === 'other') throw new ToolError(`${target.display} is not a regular file or directory (a FIFO, socket or device); grep searches files and directories.`)

    const args = ['--json', '--binary', '--hidden', '--sort', 'path', '--glob=!.git']
    if (input.case_insensitive) args.push('--ignore-case')
    if (input.context) args.push('--context', String(input.context))
    if (input.glob) args.push(`--glob=${input.glob}`)
    // `--opt=value` keeps a value that starts with '-' from being read as a flag.
    args.push(`--regexp=${input.pattern}`)
    // A directory is searched as `.` from inside it (globs are relative to it); a file from the root.
    const wsRoot = await workspaceRoot(ctx.guest)
    const rel = relativeWire(wsRoot, target.real)
    const root = isDir ? target.real : wsRoot
    args.push('--')

    const prefix = isDir ? dirPrefix(rel) : ''
    const fmt = new GrepFormatter((p) => wireToModel(relocate(p, prefix)), input.context ?? 0)
    const full = (): boolean => fmt.out.length + fmt.pendingLines >= GREP_MAX_LINES || fmt.chars >= GREP_BUDGET_CHARS
    const onLine = (line: string): boolean => {
      fmt.push(line)
      return !full()
    }
    const rg = await runRipgrep(ctx, args, root, onLine, { pathArg: isDir ? '.' : rel })
    if (rg.stopped || rg.incomplete) fmt.flushPartial()

    const where = target.display === '.' ? 'the workspace' : target.display
    if (fmt.out.length === 0) return { output: `No matches for ${JSON.stringify(input.pattern)} in ${where}.` }

    const shown = fmt.out.slice(0, GREP_MAX_LINES)
    const notes: string[] = []
    if (rg.stopped || rg.incomplete || shown.length < fmt.out.length) {
      notes.push(
        `(Showing the first ${shown.length} output lines; the search was stopped there, so more matches exist. ` +
          'Narrow it: a more specific pattern, a path (a directory or one file), or a glob such as "*.ts".)'
      )
    }
    if (fmt.binaryFiles) notes.push(`(${fmt.binaryFiles} binary file${fmt.binaryFiles === 1 ? '' : 's'} matched; their content is not shown.)`)
    if (rg.warnings) notes.push(`(Some files could not be searched: ${rg.warnings})`)
    const body = shown.join('\n')
    return { output: capHead(notes.length ? `${body}\n\n${notes.join('\n')}` : body) }
  }
})
