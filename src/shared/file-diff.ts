/**
 * The real change a file tool made, as the front ends show it (issue 23 item 5): unified-diff hunks
 * of the file before and after the call with the file's own line numbers, computed in the core
 * (src/main/tools/file-diff.ts) and carried on `tool_call_finished.diff`. Pure zod.
 */
import { z } from 'zod'

/** One hunk: where it starts in the old and new file (1-based lines), how many lines each side, and its lines with their ' ', '-', '+' sign. */
export const DiffHunkSchema = z.object({
  oldStart: z.number().int().nonnegative(),
  oldLines: z.number().int().nonnegative(),
  newStart: z.number().int().nonnegative(),
  newLines: z.number().int().nonnegative(),
  lines: z.array(z.string())
})

/**
 * A file's change: its path as the tool showed it, `created` when the file did not exist before, the
 * hunks (3 lines of context), `omittedLines` when the hunks were cut at the size bound, and `note`
 * when no diff could be made (e.g. the old file was binary or too large) — then `hunks` is empty.
 */
export const FileDiffSchema = z.object({
  path: z.string(),
  created: z.boolean().optional(),
  hunks: z.array(DiffHunkSchema),
  omittedLines: z.number().int().positive().optional(),
  note: z.string().optional()
})

/** See {@link DiffHunkSchema}. */
export type DiffHunk = z.infer<typeof DiffHunkSchema>
/** See {@link FileDiffSchema}. */
export type FileDiff = z.infer<typeof FileDiffSchema>

/** A row of a rendered diff: a hunk header, or a line with its sign and its old/new line numbers. */
export type FileDiffRow =
  | { kind: 'hunk'; text: string }
  | { kind: 'context' | 'del' | 'add'; text: string; oldLine?: number; newLine?: number }

/**
 * The rows of `diff` in order: `@@ -a,b +c,d @@` before each hunk, then its lines numbered with the
 * file's real line numbers (context: both; removed: old; added: new), then `… N more lines` when
 * lines were omitted. A "\ No newline at end of file" marker is dropped.
 */
export function fileDiffRows(diff: FileDiff): FileDiffRow[] {
  const rows: FileDiffRow[] = []
  for (const h of diff.hunks) {
    rows.push({ kind: 'hunk', text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@` })
    let oldLine = h.oldStart
    let newLine = h.newStart
    for (const l of h.lines) {
      const sign = l[0]
      const text = l.slice(1)
      if (sign === '+') rows.push({ kind: 'add', text, newLine: newLine++ })
      else if (sign === '-') rows.push({ kind: 'del', text, oldLine: oldLine++ })
      else if (sign === ' ') rows.push({ kind: 'context', text, oldLine: oldLine++, newLine: newLine++ })
    }
  }
  if (diff.omittedLines) rows.push({ kind: 'hunk', text: `… ${diff.omittedLines} more lines` })
  return rows
}
