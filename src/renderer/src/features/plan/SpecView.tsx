/**
 * The spec document drafted last (Spec mode): its stage, title and Markdown (sanitized, like the
 * assistant's text), and for the tasks document the task list that becomes the todos on accept.
 */
import { useMemo } from 'react'
import { useCurrentView } from '../../store/app-store'
import { renderMarkdown } from '../timeline/markdown'

const STAGES = ['requirements', 'design', 'tasks'] as const

/** The spec panel; renders nothing before the first spec_updated. */
export function SpecView(): React.JSX.Element | null {
  const spec = useCurrentView()?.spec ?? null
  const html = useMemo(() => (spec ? renderMarkdown(spec.markdown) : ''), [spec])
  if (!spec) return null
  return (
    <div className="spec" data-testid="spec-view" data-stage={spec.stage}>
      <ol className="spec-stages">
        {STAGES.map((s) => (
          <li key={s} className={s === spec.stage ? 'current' : ''}>
            {s}
          </li>
        ))}
      </ol>
      <h3 data-testid="spec-title">{spec.title}</h3>
      <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />
    </div>
  )
}
