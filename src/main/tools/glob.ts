/**
 * glob: list files matching a glob pattern, via `rg --files --hidden --sort path --glob !.git` spawned
 * in the guest (argv, no shell) and read as a stream. The pattern is NOT passed as `--glob`: rg's
 * globs override ignore rules, so a pattern for all *.log files would list gitignored logs. It goes
 * into an ignore file given with `--ignore-file=/dev/stdin` (lines: `*`, then `!` + `*` + `/`, then
 * `!PATTERN`; piped in by a small sh wrapper, so no file in the guest holds it and a command cannot
 * replace it), which ranks below .gitignore, so ignored files stay out and only matching files are listed. An
 * empty result is checked once with `--glob` (so an invalid pattern is reported as rg's error).
 * The first {@link GLOB_MAX_RESULTS} paths are kept, the rest only counted (up to {@link GLOB_COUNT_LIMIT},
 * where rg is stopped). Ignore files (.gitignore, .ignore, .git/info/exclude) are honoured, but a
 * pattern that names its leading directory or file literally (`dist/*.js`, `node_modules/x/package.json`,
 * `.env`) and finds nothing is retried with ignore files disabled, so an explicitly named ignored
 * path is found. Names are passed through byte-exact (spaces, NBSP, NFD kept; no normalisation);
 * rg prints them NUL-terminated, and names that are not UTF-8 are re-listed through `od` and shown
 * with `\xHH` escapes that read_file accepts back (src/shared/path-bytes.ts).
 * Sorted by path name (byte order), relative to the workspace root, with "showing N of M".
 */
import { z } from 'zod'
import { defineTool, ToolError } from './tool'
import { nearHint, relativeWire, resolveWorkspacePath, workspaceRoot } from './paths'
import { thousands } from './text'
import { rethrowGuestError } from './guest-errors'
import { dirPrefix, relocate, runRipgrep, type RgOptions, type RgOutcome } from './ripgrep'
import { capHead } from './limits'
import type { ToolContext } from './tool'
import { bytesToWire, wireToModel } from '../../shared/path-bytes'

/** Most file paths one glob result lists. */
export const GLOB_MAX_RESULTS = 500
/** Matches counted at most; past it rg is stopped and the total is reported as "more than". */
export const GLOB_COUNT_LIMIT = 100_000

const description = `Find files by name with a glob pattern. Returns matching file paths relative to the workspace root, sorted by path name (byte order, not modification time), at most ${GLOB_MAX_RESULTS}; when there are more, a "showing N of M" notice gives the total.

- pattern: a glob matched against paths relative to \`path\`. A pattern without "/" matches a file name in any directory ("*.ts"); use "**" to cross directories ("src/**/*.test.ts"); braces are supported ("*.{js,ts}").
- path: directory to search (default: the workspace root).
- Hidden files and dot-directories are included; the .git directory is not. Files ignored by .gitignore are left out of broad patterns, but a pattern that starts with a literal name ("node_modules/react/package.json", "dist/*.js", ".env") still finds ignored files when nothing else matches.
- Only files are listed, not directories. Names are shown exactly as stored (spaces and Unicode kept). In a name that is not valid UTF-8 or holds a control character, each such byte is shown as \\xHH (and a backslash as \\\\); pass the name back in that form to read_file, grep or edit_file.`

/** Input of glob. */
export const GlobInput = z.object({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/**/index.{js,ts}"'),
  path: z.string().min(1).optional().describe('Directory to search in, relative to the workspace root (default: the root)')
})

/**
 * Whether a glob names its first path segment literally (no `*?[{` in it), e.g. `dist/*.js` or `.env`:
 * such a pattern targets a specific place, so ignore files should not hide it.
 */
export function namesLiteralPrefix(pattern: string): boolean {
  const first = pattern.replace(/^\.\//, '').split('/')[0] ?? ''
  return first !== '' && first !== '**' && !/[*?[\]{}]/.test(first)
}

/** glob: file paths matching a pattern, sorted by path, capped. */
export const globTool = defineTool({
  name: 'glob',
  description,
  inputSchema: GlobInput,
  async execute(input, ctx) {
    const dir = await resolveWorkspacePath(ctx.guest, input.path)
    if (!dir.exists) throw new ToolError(`Directory not found: ${dir.display}${nearHint(dir)}`)
    const stat = await ctx.guest.stat(dir.real).catch((err: unknown) => rethrowGuestError(err, dir.display))
    if (stat.type !== 'dir') throw new ToolError(`${dir.display} is not a directory; glob searches directories.`)

    if (/[\r\n]/.test(input.pattern)) throw new ToolError('The pattern contains a line break; give one glob pattern.')
    let listing = await list(ctx, input.pattern, dir.real, false)
    let ignoredNote = ''
    if (listing.count === 0 && namesLiteralPrefix(input.pattern)) {
      listing = await list(ctx, input.pattern, dir.real, true)
      if (listing.count > 0) ignoredNote = '(These files are ignored by .gitignore or another ignore file; they are listed because the pattern names them.)'
    } else if (listing.count === 0) {
      // Ignore files skip invalid lines silently: let rg parse the pattern as a glob to report errors.
      await runRipgrep(ctx, ['--files', '--max-depth=0', `--glob=${input.pattern}`, '.'], dir.real, () => true)
    }
    const where = dir.display === '.' ? 'the workspace' : dir.display
    if (listing.count === 0) return { output: `No files match ${JSON.stringify(input.pattern)} in ${where}.` }

    const prefix = dirPrefix(relativeWire(await workspaceRoot(ctx.guest), dir.real))
    const shown = listing.first.map((l) => wireToModel(relocate(l, prefix)))
    const { count, rg } = listing
    const notes: string[] = []
    if (rg.stopped || rg.incomplete) {
      notes.push(`(Showing ${shown.length} of more than ${thousands(count)} files, sorted by path; counting was stopped there. Narrow the pattern or path.)`)
    } else if (count > shown.length) {
      notes.push(`(Showing ${shown.length} of ${count} files, sorted by path. Narrow the pattern or path to see the rest.)`)
    } else {
      notes.push(`(${count} file${count === 1 ? '' : 's'}, sorted by path.)`)
    }
    if (ignoredNote) notes.push(ignoredNote)
    if (rg.warnings) notes.push(`(Some paths could not be read: ${rg.warnings})`)
    return { output: capHead(`${shown.join('\n')}\n\n${notes.join('\n')}`) }
  }
})

/** One rg --files listing: the first paths (wire form, `./`-relative), how many matched, and rg's outcome. */
interface Listing {
  first: string[]
  count: number
  rg: RgOutcome
}

/**
 * List files matching `pattern` under `cwd` (NUL-separated, so names with line breaks stay whole).
 * Names that are not UTF-8 arrive as U+FFFD in the text stream; then the listing is run once more
 * through `od` (hex) and decoded byte-exact.
 */
async function list(ctx: ToolContext, pattern: string, cwd: string, noIgnore: boolean): Promise<Listing> {
  const first = await listOnce(ctx, pattern, cwd, noIgnore, false)
  return first.first.some((l) => l.includes('\ufffd')) ? listOnce(ctx, pattern, cwd, noIgnore, true) : first
}

/** One listing pass; `hex` reads rg's output as od's hex dump. */
async function listOnce(ctx: ToolContext, pattern: string, cwd: string, noIgnore: boolean, hex: boolean): Promise<Listing> {
  const first: string[] = []
  let count = 0
  const opts: RgOptions = noIgnore ? { hex } : { ignoreFile: patternIgnoreFile(pattern), hex }
  const args = ['--files', '--null', '--hidden', '--sort', 'path', '--glob=!.git', ...(noIgnore ? [`--glob=${pattern}`, '--no-ignore'] : []), '.']
  const onName = (name: string): boolean => {
    if (name === '') return true
    count++
    if (first.length < GLOB_MAX_RESULTS) first.push(name)
    return count < GLOB_COUNT_LIMIT
  }
  let pending = ''
  let bytes: number[] = []
  const rg = await runRipgrep(
    ctx,
    args,
    cwd,
    (line) => {
      if (!hex) {
        // rg ends each name with NUL; lines split on LF, so a name may hold LFs.
        pending += pending === '' ? line : `\n${line}`
        const parts = pending.split('\0')
        pending = parts.pop() ?? ''
        for (const p of parts) if (!onName(p)) return false
        return true
      }
      for (const h of line.trim().split(/\s+/)) {
        if (h === '') continue
        const b = parseInt(h, 16)
        if (b !== 0) {
          bytes.push(b)
          continue
        }
        const name = bytesToWire(Uint8Array.from(bytes))
        bytes = []
        if (!onName(name)) return false
      }
      return true
    },
    opts
  )
  return { first, count, rg }
}

/**
 * The ignore file that selects `pattern`: ignore everything, keep directories walkable, un-ignore
 * matching paths. Gitignore syntax, so a leading `!`/`#` and a trailing space are escaped. It goes to
 * rg on stdin: no file in the guest that a command could replace.
 */
export function patternIgnoreFile(pattern: string): string {
  const escaped = /^[!#]/.test(pattern) ? `\\${pattern}` : pattern
  return `*\n!*/\n!${escaped.replace(/ $/, '\\ ')}\n`
}
