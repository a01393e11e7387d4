/**
 * The current plan: title, summary (sanitized Markdown, timeline/markdown.ts), ordered steps and its mermaid diagram rendered to SVG with
 * mermaid.render (strict security level, the app's light or dark theme; mermaid is loaded on first use). Links in the diagram never
 * load in the app's tab (diagram-links.ts). A diagram mermaid rejects shows its source and the parse
 * error instead.
 */
import { useEffect, useState } from 'react'
import { useCurrentView } from '../../store/app-store'
import { neutralizeDiagramLinks, openDiagramLink } from './diagram-links'
import { renderMarkdown } from '../timeline/markdown'
import { useColorScheme } from '../layout/color-scheme'

let counter = 0
let mermaidReady: Promise<typeof import('mermaid').default> | undefined

function loadMermaid(): Promise<typeof import('mermaid').default> {
  mermaidReady ??= import('mermaid').then(({ default: mermaid }) => mermaid)
  return mermaidReady
}

/** Render `source` to an SVG string in `scheme`'s mermaid theme, with inert links; rejects with mermaid's parse error. */
async function renderDiagram(source: string, scheme: 'light' | 'dark'): Promise<string> {
  const mermaid = await loadMermaid()
  // the theme is read at render time: set it for this render (the light theme is mermaid's default)
  mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: scheme === 'light' ? 'default' : 'dark' })
  const { svg } = await mermaid.render(`plan-diagram-${++counter}`, source)
  return neutralizeDiagramLinks(svg)
}

/** The plan panel; empty text until a plan_updated event arrives (nothing while a spec is shown instead). */
export function PlanView(): React.JSX.Element | null {
  const view = useCurrentView()
  const plan = view?.plan ?? null
  const scheme = useColorScheme()
  const [svg, setSvg] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let live = true
    setSvg(null)
    setError(null)
    if (!plan) return
    renderDiagram(plan.mermaid, scheme).then(
      (s) => live && setSvg(s),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e))
    )
    return () => {
      live = false
    }
  }, [plan, scheme])

  if (!plan) return view?.spec ? null : <div className="panel-empty" data-testid="plan-view">No plan yet.</div>
  return (
    <div className="plan" data-testid="plan-view">
      <h3 data-testid="plan-title">{plan.title}</h3>
      {plan.summary && <div className="markdown plan-summary" data-testid="plan-summary" dangerouslySetInnerHTML={{ __html: renderMarkdown(plan.summary) }} />}
      <ol>
        {plan.steps.map((step, i) => (
          <li key={i}>{step}</li>
        ))}
      </ol>
      {svg && <div className="plan-diagram" data-testid="plan-diagram" onClickCapture={openDiagramLink} dangerouslySetInnerHTML={{ __html: svg }} />}
      {error && (
        <div className="plan-diagram-error" data-testid="plan-diagram-error">
          <p>Diagram could not be rendered: {error}</p>
          <pre>{plan.mermaid}</pre>
        </div>
      )}
    </div>
  )
}
