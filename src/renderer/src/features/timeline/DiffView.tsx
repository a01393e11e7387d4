/** A compact, colored unified diff (see edit-diff.ts): removed lines red with "-", added green with "+". */
import { memo, useMemo } from 'react'
import { editDiff } from './edit-diff'

const SIGN = { hunk: '', context: ' ', del: '-', add: '+' } as const

/** The diff of an edit_file call's arguments; nothing when they hold no edit. */
export const DiffView = memo(function DiffView({ args }: { args: unknown }): React.JSX.Element | null {
  const lines = useMemo(() => editDiff(args), [args])
  if (lines.length === 0) return null
  return (
    <pre className="tool-diff" data-testid="tool-diff">
      {lines.map((l, i) => (
        <div key={i} className={`diff-${l.kind}`} data-kind={l.kind}>
          {l.kind === 'hunk' ? l.text : `${SIGN[l.kind]} ${l.text}`}
        </div>
      ))}
    </pre>
  )
})
