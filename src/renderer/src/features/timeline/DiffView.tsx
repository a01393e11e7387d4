/**
 * A compact, colored unified diff (see edit-diff.ts): removed lines red with "-", added green with
 * "+", each with its line number before and after the edit in two gutters (the file's numbers once
 * the call's result says where the edit landed; drawn from `data-ln` by timeline.css).
 */
import { memo, useMemo } from 'react'
import { editDiff } from './edit-diff'

const SIGN = { hunk: '', context: ' ', del: '-', add: '+' } as const

/** The two gutters (old, new line number), right-aligned; drawn by CSS from data-ln, so copied text and textContent hold only the diff. */
function gutter(oldLine: number | undefined, newLine: number | undefined): string {
  const cell = (n: number | undefined): string => String(n ?? '').padStart(5)
  return `${cell(oldLine)}${cell(newLine)} `
}

/** The diff of an edit_file call's arguments; nothing when they hold no edit. */
export const DiffView = memo(function DiffView({ args, result }: { args: unknown; result?: string }): React.JSX.Element | null {
  const lines = useMemo(() => editDiff(args, result), [args, result])
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
