/**
 * The plan a `plan` tool call published, inside its timeline row (issue 23, item 11): title, summary
 * (sanitized Markdown) and numbered steps, so the timeline keeps the plan's content after later
 * plans replace it in the Plan tab; the diagram stays in the Plan tab.
 */
import { renderMarkdown } from './markdown'

/** The plan in `args` (the call's arguments), or nothing when they are not a plan. */
export function PlanArgs({ args }: { args: unknown }): React.JSX.Element | null {
  if (!args || typeof args !== 'object') return null
  const a = args as { title?: unknown; summary?: unknown; steps?: unknown }
  const steps = Array.isArray(a.steps) ? a.steps.filter((s): s is string => typeof s === 'string') : []
  if (typeof a.title !== 'string' && steps.length === 0) return null
  return (
    <div className="tool-plan" data-testid="tool-plan">
      {typeof a.title === 'string' && <strong data-testid="tool-plan-title">{a.title}</strong>}
      {typeof a.summary === 'string' && a.summary && <div className="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(a.summary) }} />}
      {steps.length > 0 && (
        <ol data-testid="tool-plan-steps">
          {steps.map((s, i) => (
            <li key={i}>{s}</li>
          ))}
        </ol>
      )}
    </div>
  )
}
