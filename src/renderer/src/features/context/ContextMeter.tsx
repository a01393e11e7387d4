/**
 * The context line under the timeline: "context 62% of 200k" after each model request (warned
 * from the compaction threshold on), what the MCP tools' schemas cost and what deferral saved, and a Compact button that submits op `compact` when no turn
 * runs (the harness compacts: src/main/harness/compaction).
 */
import { useAppStore, useCurrentView } from '../../store/app-store'
import './context.css'

/** Context use of the current session and its Compact button; nothing before the first request. */
export function ContextMeter(): React.JSX.Element | null {
  const view = useCurrentView()
  const handle = useAppStore((s) => s.handle)
  if (!view?.context && !view?.mcpSchemas) return null
  const { tokens, window, label } = view.context ?? { tokens: 0, window: 1, label: '' }
  const high = tokens / window >= 0.7
  const compact = async (): Promise<void> => {
    try {
      await handle.api.submit({ sessionId: view.sessionId, op: { type: 'compact' } })
      useAppStore.setState({ requestError: null })
    } catch (err) {
      useAppStore.setState({ requestError: err instanceof Error ? err.message : String(err) })
    }
  }
  return (
    <div className={`context-meter${high ? ' high' : ''}`} data-testid="context-meter">
      {label && <span data-testid="context-label">{label}</span>}
      {view.mcpSchemas && (
        <span className="mcp-schemas" data-testid="mcp-schemas" title="Estimated tokens of the MCP tools' declarations; deferred tools are found with tool_search and sent once loaded">
          {view.mcpSchemas.label}
        </span>
      )}
      <button data-testid="compact-button" disabled={view.running} title="Summarise the history now (keeps your messages, todos, open files and diffs verbatim)" onClick={() => void compact()}>
        Compact
      </button>
    </div>
  )
}
