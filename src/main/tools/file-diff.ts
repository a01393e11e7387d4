/**
 * The real diff of a file tool's change (issue 23 item 5): the whole file before and after the call
 * compared with jsdiff's structuredPatch, so a front end shows what the file now holds with its own
 * line numbers — not the model's old_string/new_string. Bounded: texts over
 * {@link DIFF_MAX_INPUT_CHARS} get a note instead, the comparison gives up after
 * {@link DIFF_TIMEOUT_MS}, and at most {@link DIFF_MAX_LINES} hunk lines are kept.
 */
import { structuredPatch } from 'diff'
import type { DiffHunk, FileDiff } from '../../shared/file-diff'

/** Longest text (before or after, in characters) compared; a larger file gets a note. */
export const DIFF_MAX_INPUT_CHARS = 2 * 1024 * 1024
/** Most hunk lines one diff keeps (the rest is counted in `omittedLines`). */
export const DIFF_MAX_LINES = 400
/** Longest the comparison may take (ms) before the diff is given up with a note. */
export const DIFF_TIMEOUT_MS = 500

/**
 * The diff of `path` from `before` (null: the file did not exist) to `after`, 3 lines of context.
 * Never throws: a text too large or a comparison too slow yields a diff with `note` and no hunks.
 */
export function fileDiff(path: string, before: string | null, after: string): FileDiff {
  const created = before === null ? { created: true } : {}
  if ((before?.length ?? 0) > DIFF_MAX_INPUT_CHARS || after.length > DIFF_MAX_INPUT_CHARS) {
    return { path, ...created, hunks: [], note: 'no diff shown: the file is over 2 MB' }
  }
  const patch = structuredPatch(path, path, before ?? '', after, undefined, undefined, { context: 3, timeout: DIFF_TIMEOUT_MS })
  if (!patch) return { path, ...created, hunks: [], note: 'no diff shown: the change is too large to compare quickly' }
  const hunks: DiffHunk[] = []
  let kept = 0
  let omitted = 0
  for (const h of patch.hunks) {
    const lines = h.lines.filter((l) => !l.startsWith('\\'))
    const room = DIFF_MAX_LINES - kept
    if (room <= 0) {
      omitted += lines.length
      continue
    }
    // a cut hunk keeps its header's counts for the lines it shows
    const shown = lines.slice(0, room)
    omitted += lines.length - shown.length
    kept += shown.length
    const count = (signs: string) => shown.filter((l) => signs.includes(l[0] ?? '')).length
    hunks.push({ oldStart: h.oldStart, oldLines: count(' -'), newStart: h.newStart, newLines: count(' +'), lines: shown })
  }
  return { path, ...created, hunks, ...(omitted > 0 ? { omittedLines: omitted } : {}) }
}
