/**
 * Pure formatting of tool rows for the interactive CLI: the key argument shown on the row, the
 * unified diff of an edit_file/write_file call (the file's real diff from the core, numbered; from
 * the arguments, with the `diff` package, for sessions logged before), the
 * tail of a command's output, and durations.
 */
import { structuredPatch } from 'diff'
import { fileDiffRows, type FileDiff } from '../../shared/file-diff'
import { terminalSafe } from '../terminal-safe'

/** One line of a diff: ' ' context, '+' added, '-' removed, '@' a hunk header; `line`: its line number in the file (the new file's, the old one's for a removed line). */
export interface DiffLine {
  sign: ' ' | '+' | '-' | '@'
  text: string
  line?: number
}

const SIGNS = { context: ' ', del: '-', add: '+' } as const

/**
 * The lines to show for a finished file tool: the real diff of the file the core sent
 * (`tool_call_finished.diff`), numbered with the file's lines, else (a session logged before that)
 * {@link diffOf} its arguments. A diff the core could not make shows its note as a header line.
 */
export function callDiff(name: string, args: unknown, diff: FileDiff | undefined): DiffLine[] {
  if (!diff) return diffOf(name, args)
  if (diff.note) return [{ sign: '@', text: terminalSafe(diff.note) }]
  return fileDiffRows(diff).map((r) =>
    r.kind === 'hunk' ? { sign: '@', text: r.text } : { sign: SIGNS[r.kind], text: terminalSafe(r.text), line: r.kind === 'del' ? r.oldLine : r.newLine }
  )
}

/** Width of the line-number gutter for `lines` (0 when none is numbered). */
export function gutterWidth(lines: DiffLine[]): number {
  return lines.reduce((w, l) => Math.max(w, l.line === undefined ? 0 : String(l.line).length), 0)
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {})

/**
 * The argument a person identifies a call by: the command of bash (whitespace kept, first line), the
 * path of file tools, the pattern of glob/grep; else a compact JSON of the arguments. Terminal-safe, at most `max` characters.
 */
export function keyArgument(name: string, args: unknown, max = 200): string {
  const a = obj(args)
  let text: string
  if (name === 'bash') text = str(a.command) ?? ''
  else if (str(a.path) && !str(a.pattern)) text = str(a.path) ?? ''
  else if (str(a.pattern)) text = `${str(a.pattern)}${str(a.path) ? ` in ${str(a.path)}` : ''}`
  else if (name === 'plan') text = str(a.title) ?? ''
  else if (name === 'todo_write') text = `${Array.isArray(a.todos) ? a.todos.length : 0} todos`
  else if (name === 'skill' && str(a.name)) text = `${str(a.name)}${str(a.file) ? ` ${str(a.file)}` : ''}`
  else text = JSON.stringify(args) ?? ''
  text = terminalSafe(text)
  const firstLine = text.split('\n')[0] ?? ''
  const more = firstLine.length < text.length ? ' …' : ''
  return firstLine.length + more.length > max ? `${firstLine.slice(0, max - 1)}…` : firstLine + more
}

/**
 * The change an edit_file or write_file call makes, as unified diff lines (3 lines of context),
 * computed from its arguments: each edit's old_string → new_string, or a write's whole content as
 * added lines. Empty for any other tool.
 */
export function diffOf(name: string, args: unknown): DiffLine[] {
  const a = obj(args)
  const path = str(a.path) ?? 'file'
  const pairs: Array<[string, string]> = []
  if (name === 'write_file') pairs.push(['', str(a.content) ?? ''])
  else if (name === 'edit_file') {
    if (Array.isArray(a.edits)) for (const e of a.edits) pairs.push([str(obj(e).old_string) ?? '', str(obj(e).new_string) ?? ''])
    else pairs.push([str(a.old_string) ?? '', str(a.new_string) ?? ''])
  } else return []
  const out: DiffLine[] = []
  for (const [before, after] of pairs) {
    const patch = structuredPatch(path, path, before, after, '', '', { context: 3 })
    for (const h of patch.hunks) {
      if (pairs.length > 1 || name === 'edit_file') out.push({ sign: '@', text: `@@ -${h.oldLines} +${h.newLines} @@` })
      for (const l of h.lines) {
        if (l.startsWith('\\')) continue
        const sign = l[0] === '+' || l[0] === '-' ? l[0] : ' '
        out.push({ sign, text: terminalSafe(l.slice(1)) })
      }
    }
  }
  return out
}

/** The last `n` lines of `text` (terminal-safe), and how many lines came before them. */
export function tailLines(text: string, n: number): { lines: string[]; hidden: number } {
  const all = terminalSafe(text).replace(/\n$/, '').split('\n')
  if (all.length === 1 && all[0] === '') return { lines: [], hidden: 0 }
  return { lines: all.slice(-n), hidden: Math.max(0, all.length - n) }
}

/** `850 ms`, `2.4 s`, `1 m 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`
}

/** The exit code a finished bash call reported (`exit_code: N` in its result) when it is not 0; else null. */
export function nonZeroExit(name: string, result: string | undefined): string | null {
  if (name !== 'bash' || !result) return null
  const m = /^exit_code: (\S+)$/m.exec(result)
  return m && m[1] !== '0' ? (m[1] ?? null) : null
}
