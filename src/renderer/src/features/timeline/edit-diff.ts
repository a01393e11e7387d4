/**
 * A compact unified diff of an edit_file call (old_string → new_string, or each of its `edits`),
 * computed with jsdiff's structuredPatch: hunks of context, removed and added lines.
 */
import { structuredPatch } from 'diff'

/** One line of the diff: `hunk` headers (`@@ -1,3 +1,3 @@`), context, removed or added text. */
export interface DiffLine {
  kind: 'hunk' | 'context' | 'del' | 'add'
  text: string
  /** Line number in the file before the edit (context and removed lines). */
  oldLine?: number
  /** Line number in the file after the edit (context and added lines). */
  newLine?: number
}

/**
 * The line each edit starts at in the file, from edit_file's result ("… occurrence at line 143",
 * "(2) 1 occurrence at lines 7, 9"): one number per edit, in order; [] without a result.
 */
export function editStartLines(result: string | undefined): number[] {
  if (!result) return []
  return [...result.matchAll(/occurrences? at lines? (\d+)/g)].map((m) => Number(m[1]))
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
 * The unified diff lines of an edit_file call's arguments, numbered with the file's line numbers
 * when the call's `result` says where each edit landed (else relative to the replaced text, from 1).
 * Empty when the arguments hold no edit.
 */
export function editDiff(args: unknown, result?: string): DiffLine[] {
  const out: DiffLine[] = []
  const pairs = editPairs(args)
  const starts = editStartLines(result)
  pairs.forEach((pair, i) => {
    const base = (starts.length === pairs.length ? starts[i] : undefined) ?? 1
    if (pairs.length > 1) out.push({ kind: 'hunk', text: `edit ${i + 1} of ${pairs.length}` })
    const patch = structuredPatch('old', 'new', withNewline(pair.oldText), withNewline(pair.newText), undefined, undefined, { context: CONTEXT })
    for (const hunk of patch.hunks) {
      if (patch.hunks.length > 1) out.push({ kind: 'hunk', text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` })
      let oldLine = base + hunk.oldStart - 1
      let newLine = base + hunk.newStart - 1
      for (const line of hunk.lines) {
        const sign = line[0]
        const text = line.slice(1)
        if (sign === '+') out.push({ kind: 'add', text, newLine: newLine++ })
        else if (sign === '-') out.push({ kind: 'del', text, oldLine: oldLine++ })
        else if (sign === ' ') out.push({ kind: 'context', text, oldLine: oldLine++, newLine: newLine++ })
      }
    }
  })
  if (out.length > DIFF_MAX_LINES) {
    const more = out.length - DIFF_MAX_LINES
    return [...out.slice(0, DIFF_MAX_LINES), { kind: 'hunk', text: `… ${more} more lines` }]
  }
  return out
}
