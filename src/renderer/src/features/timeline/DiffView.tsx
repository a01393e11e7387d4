/**
 * A compact, colored unified diff: removed lines red with "-", added green with "+", each with its
 * line number before and after the edit in two gutters (drawn from `data-ln` by timeline.css). It is
 * the real diff of the file the core computed (`tool_call_finished.diff`, shared/file-diff.ts) when
 * the call has one; else, for a session logged before that, the edit's arguments (edit-diff.ts).
 */
import { memo, useMemo } from 'react'
import { fileDiffRows, type FileDiff } from '../../../../shared/file-diff'
import { editDiff, type DiffLine } from './edit-diff'

const SIGN = { hunk: '', context: ' ', del: '-', add: '+' } as const

/** The two gutters (old, new line number), right-aligned; drawn by CSS from data-ln, so copied text and textContent hold only the diff. */
function gutter(oldLine: number | undefined, newLine: number | undefined): string {
  const cell = (n: number | undefined): string => String(n ?? '').padStart(5)
  return `${cell(oldLine)}${cell(newLine)} `
}

/** The file's real diff (`diff`), else the diff of an edit_file call's arguments; nothing when neither holds a change. */
export const DiffView = memo(function DiffView({ args, result, diff }: { args: unknown; result?: string; diff?: FileDiff }): React.JSX.Element | null {
  const lines = useMemo((): DiffLine[] => {
    if (!diff) return editDiff(args, result)
    return diff.note ? [{ kind: 'hunk', text: diff.note }] : fileDiffRows(diff)
  }, [args, result, diff])
  if (lines.length === 0) return null
  return (
    <pre className="tool-diff" data-testid="tool-diff">
      {lines.map((l, i) =>
        l.kind === 'hunk' ? (
          <div key={i} className="diff-hunk" data-kind="hunk">
            {l.text}
          </div>
        ) : (
          <div key={i} className={`diff-${l.kind}`} data-kind={l.kind} data-old-line={l.oldLine} data-new-line={l.newLine} data-ln={gutter(l.oldLine, l.newLine)}>
            {`${SIGN[l.kind]} ${l.text}`}
          </div>
        )
      )}
    </pre>
  )
})
