/**
 * A compact unified diff of an edit_file call (old_string → new_string, or each of its `edits`),
 * computed with jsdiff's structuredPatch: hunks of context, removed and added lines.
 */
import { structuredPatch } from 'diff'

/** One line of the diff: `hunk` headers (`@@ -1,3 +1,3 @@`), context, removed or added text. */
export interface DiffLine {
  kind: 'hunk' | 'context' | 'del' | 'add'
  text: string
}

/** Lines of context kept around each change. */
const CONTEXT = 2
/** Most lines shown for one call; a longer diff ends with a note. */
export const DIFF_MAX_LINES = 400

interface EditPair {
  oldText: string
  newText: string
}

/** The (old, new) pairs of an edit_file argument object, or [] when it is not one. */
export function editPairs(args: unknown): EditPair[] {
  if (!args || typeof args !== 'object') return []
  const a = args as { old_string?: unknown; new_string?: unknown; edits?: unknown }
  const pairs: EditPair[] = []
  if (typeof a.old_string === 'string' && typeof a.new_string === 'string') pairs.push({ oldText: a.old_string, newText: a.new_string })
  if (Array.isArray(a.edits)) {
    for (const e of a.edits as Array<{ old_string?: unknown; new_string?: unknown }>) {
      if (e && typeof e.old_string === 'string' && typeof e.new_string === 'string') pairs.push({ oldText: e.old_string, newText: e.new_string })
    }
  }
  return pairs
}

const withNewline = (s: string): string => (s.endsWith('\n') ? s : `${s}\n`)

/**
 * The unified diff lines of an edit_file call's arguments (hunk line numbers are relative to the
 * replaced text, not the file). Empty when the arguments hold no edit.
 */
export function editDiff(args: unknown): DiffLine[] {
  const out: DiffLine[] = []
  const pairs = editPairs(args)
  pairs.forEach((pair, i) => {
    if (pairs.length > 1) out.push({ kind: 'hunk', text: `edit ${i + 1} of ${pairs.length}` })
    const patch = structuredPatch('old', 'new', withNewline(pair.oldText), withNewline(pair.newText), undefined, undefined, { context: CONTEXT })
    for (const hunk of patch.hunks) {
      if (patch.hunks.length > 1) out.push({ kind: 'hunk', text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` })
      for (const line of hunk.lines) {
        const sign = line[0]
        const text = line.slice(1)
        if (sign === '+') out.push({ kind: 'add', text })
        else if (sign === '-') out.push({ kind: 'del', text })
        else if (sign === ' ') out.push({ kind: 'context', text })
      }
    }
  })
  if (out.length > DIFF_MAX_LINES) {
    const more = out.length - DIFF_MAX_LINES
    return [...out.slice(0, DIFF_MAX_LINES), { kind: 'hunk', text: `… ${more} more lines` }]
  }
  return out
}
