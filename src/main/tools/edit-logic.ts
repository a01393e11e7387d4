/**
 * The pure string edit behind edit_file: exact search of `old_string`, literal insertion of
 * `new_string` (no `$&`-style expansion: index slicing only), line-ending adaptation (an LF
 * `old_string` matches a CRLF file and the replacement keeps CRLF), ordered all-or-nothing
 * multi-edits, and model-readable errors for no match (with the closest region) / several matches /
 * no-op edits.
 */
import { ToolError } from './tool'
import { lineNumberAt } from './text'
import { closestRegion, renderRegion } from './edit-hints'

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
  /** The text inserted for each occurrence (`newString`, line endings adapted). */
  replacedText: string
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
  return { content: next, replacements: used.length, lines: lines.slice(0, used.length), adaptedLineEndings: adapted, replacedText: replacement }
}

/** `2, 4, 9` — capped at {@link MAX_LISTED_LINES} with `… (+N more)`. */
function listLines(lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED_LINES).join(', ')
  return lines.length > MAX_LISTED_LINES ? `${shown}, … (+${lines.length - MAX_LISTED_LINES} more)` : shown
}

/**
 * The no-match message: the region of the file closest to `oldString` (line numbers, similarity) when
 * one is at least 30 % similar, so the model sees what the text really is.
 */
function notFoundMessage(content: string, oldString: string, display: string): string {
  const base = `old_string was not found in ${display}.`
  const advice = 'Read the file again and copy the exact current text, including whitespace and indentation.'
  const region = closestRegion(content, oldString)
  if (!region) return `${base} No similar region was found either. ${advice}`
  const range = region.startLine === region.endLine ? `line ${region.startLine}` : `lines ${region.startLine}–${region.endLine}`
  return (
    `${base} The closest region is ${range} (${Math.round(region.score * 100)}% similar line by line); its current text:\n` +
    `${renderRegion(content, region.startLine, region.endLine)}\n${advice}`
  )
}

/** One edit of a multi-edit call. */
export interface EditSpec {
  old_string: string
  new_string: string
  replace_all?: boolean
}

/** Result of {@link applyEdits}: the final content and one outcome per edit, in order. */
export interface EditsOutcome {
  content: string
  outcomes: EditOutcome[]
}

/**
 * Apply `edits` in order, each to the result of the previous one; all or nothing.
 * @throws ToolError naming the failing edit (`edit 2 of 3: …`) — nothing is applied — or when the
 *   edits together leave the content unchanged
 */
export function applyEdits(content: string, edits: readonly EditSpec[], display: string): EditsOutcome {
  let current = content
  const outcomes: EditOutcome[] = []
  edits.forEach((e, i) => {
    try {
      const o = applyEdit(current, e.old_string, e.new_string, e.replace_all ?? false, display)
      outcomes.push(o)
      current = o.content
    } catch (err) {
      if (edits.length > 1 && err instanceof ToolError) {
        throw new ToolError(`edit ${i + 1} of ${edits.length} failed, so none of the edits was applied: ${err.message}`)
      }
      throw err
    }
  })
  if (current === content) throw new ToolError(`The edits would leave ${display} unchanged.`)
  return { content: current, outcomes }
}
