/**
 * The pure string edit behind edit_file: exact search of `old_string`, literal insertion of
 * `new_string` (no `$&`-style expansion: index slicing only), line-ending adaptation (an LF
 * `old_string` matches a CRLF file and the replacement keeps CRLF), and model-readable errors for
 * no match / several matches / no-op edits.
 */
import { ToolError } from './tool'
import { lineNumberAt } from './text'

/** Result of {@link applyEdit}. */
export interface EditOutcome {
  /** The new file content. */
  content: string
  /** Number of occurrences replaced (≥ 1). */
  replacements: number
  /** 1-based line numbers (in the original content) where each replaced occurrence starts. */
  lines: number[]
  /** `crlf` / `lf` when `old_string`/`new_string` were converted to the file's line endings; `none` otherwise. */
  adaptedLineEndings: 'none' | 'crlf' | 'lf'
}

/** How many line numbers an error message lists at most. */
const MAX_LISTED_LINES = 20

/**
 * Start offsets of the non-overlapping occurrences of `needle` in `haystack`, left to right.
 * @param needle non-empty search string
 */
export function findOccurrences(haystack: string, needle: string): number[] {
  const found: number[] = []
  if (needle === '') return found
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) found.push(i)
  return found
}

/** Convert every LF (bare or already in CRLF) to CRLF. */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, () => '\r\n')
}

/** Convert every CRLF to LF. */
export function toLf(text: string): string {
  return text.split('\r\n').join('\n')
}

/**
 * Replace `oldString` by `newString` in `content`.
 * @param content current file text
 * @param oldString exact text to find (non-empty)
 * @param newString replacement, inserted literally
 * @param replaceAll replace every occurrence; otherwise exactly one must exist
 * @param display the file's name for messages
 * @returns the edited content and where the replacements happened
 * @throws ToolError when `oldString` is empty, equals `newString`, is not found, is found several
 *   times without `replaceAll` (message names the count and line numbers), or the edit changes nothing
 */
export function applyEdit(
  content: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
  display: string
): EditOutcome {
  if (oldString === '') throw new ToolError('old_string is empty. To create or overwrite a whole file use write_file.')
  if (oldString === newString) throw new ToolError('old_string and new_string are identical; the edit would change nothing.')

  let search = oldString
  let replacement = newString
  let adapted: EditOutcome['adaptedLineEndings'] = 'none'
  let hits = findOccurrences(content, search)
  if (hits.length === 0) {
    const fileHasCrlf = content.includes('\r\n')
    if (fileHasCrlf && /(^|[^\r])\n/.test(oldString)) {
      search = toCrlf(oldString)
      replacement = toCrlf(newString)
      adapted = 'crlf'
    } else if (!fileHasCrlf && oldString.includes('\r\n')) {
      search = toLf(oldString)
      replacement = toLf(newString)
      adapted = 'lf'
    }
    if (adapted !== 'none') hits = findOccurrences(content, search)
  }

  if (hits.length === 0) throw new ToolError(notFoundMessage(content, oldString, display))

  const lines = hits.map((i) => lineNumberAt(content, i))
  if (hits.length > 1 && !replaceAll) {
    throw new ToolError(
      `old_string occurs ${hits.length} times in ${display} (at lines ${listLines(lines)}). ` +
        'Include more surrounding context to make it unique, or set replace_all to true to replace every occurrence.'
    )
  }

  const used = replaceAll ? hits : hits.slice(0, 1)
  const parts: string[] = []
  let cursor = 0
  for (const start of used) {
    parts.push(content.slice(cursor, start), replacement)
    cursor = start + search.length
  }
  parts.push(content.slice(cursor))
  const next = parts.join('')
  if (next === content) throw new ToolError(`The edit would leave ${display} unchanged.`)
  return { content: next, replacements: used.length, lines: lines.slice(0, used.length), adaptedLineEndings: adapted }
}

/** `2, 4, 9` — capped at {@link MAX_LISTED_LINES} with `… (+N more)`. */
function listLines(lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED_LINES).join(', ')
  return lines.length > MAX_LISTED_LINES ? `${shown}, … (+${lines.length - MAX_LISTED_LINES} more)` : shown
}

/**
 * The no-match message, with a cheap hint: lines whose trimmed text equals the first non-blank line
 * of `oldString` (trimmed), which usually means an indentation or whitespace difference further on.
 */
function notFoundMessage(content: string, oldString: string, display: string): string {
  const base = `old_string was not found in ${display}.`
  const advice = ' Read the file again and copy the exact current text, including whitespace and indentation.'
  const firstLine = oldString.split(/\r?\n/).find((l) => l.trim() !== '')?.trim()
  if (!firstLine) return base + advice
  const candidates: number[] = []
  const fileLines = content.split('\n')
  for (let i = 0; i < fileLines.length && candidates.length < 5; i++) {
    if ((fileLines[i] ?? '').trim() === firstLine) candidates.push(i + 1)
  }
  if (candidates.length === 0) {
    const lower = firstLine.toLowerCase()
    for (let i = 0; i < fileLines.length && candidates.length < 5; i++) {
      if ((fileLines[i] ?? '').trim().toLowerCase() === lower) candidates.push(i + 1)
    }
    if (candidates.length > 0) {
      return `${base} A line matching its first line except for letter case is at line ${candidates.join(', ')}.${advice}`
    }
    return base + advice
  }
  return (
    `${base} Its first line (ignoring surrounding whitespace) appears at line ${candidates.join(', ')}; ` +
    `the difference is further on or in whitespace.${advice}`
  )
}
