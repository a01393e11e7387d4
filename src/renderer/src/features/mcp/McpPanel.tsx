/**
 * The MCP panel in Settings (ADR 0034): every server the current repository sees, its state
 * (connected, connecting, failed, needs login, untrusted, off, shadowed, configured), where it comes from, what it
 * runs, its tools and the tokens their schemas cost; Enable/Disable (a repository's server is
 * trusted in its exact current form; a user server's `"enabled"`), and Import, which adds Claude
 * Code's, Codex's and Gemini CLI's servers to the user's config and says what it took and skipped.
 * A remote server that needs an OAuth login has a Log in button (the browser opens, or a link is
 * shown where the app cannot open it). A server still connecting is asked about again each second; Refresh asks at once. Everything goes
 * through the session API (mcpServers, setMcpServerEnabled, loginMcpServer, importMcpServers).
 */
import { useCallback, useEffect, useMemo, useState } from 'react'
import { formatTokens } from '../../../../shared/compaction'
import type { McpImportResult, McpPanel as Panel, McpPanelServer } from '../../../../shared/mcp-panel'
import { useAppStore, useCurrentView } from '../../store/app-store'

const STATE_LABELS: Record<McpPanelServer['state'], string> = {
  connected: 'connected',
  connecting: 'connecting…',
  failed: 'failed',
  needs_login: 'needs login',
  untrusted: 'untrusted — off until you enable it',
  off: 'off',
  shadowed: 'shadowed by another entry',
  configured: 'starts with the next session'
}

/** Whether the toggle enables (off, untrusted) or disables; null: no toggle (shadowed, or from --mcp-config). */
function toggleOf(s: McpPanelServer): boolean | null {
  if (s.state === 'shadowed' || s.source === 'flag') return null
  return s.state === 'off' || s.state === 'untrusted'
}

function ImportReport({ r }: { r: McpImportResult }): React.JSX.Element {
  return (
    <div className="mcp-import-result" data-testid="mcp-import-result" role="status">
      {r.added.length ? `Imported ${r.added.map((a) => a.name).join(', ')} into ${r.file}.` : 'Nothing new to import.'}
      {r.skipped.map((s) => (
        <div key={`${s.name}:${s.reason}`} className="muted">
          skipped {s.name}: {s.reason}
        </div>
      ))}
      {r.problems.map((p) => (
        <div key={p} className="settings-error">
          {p}
        </div>
      ))}
      {r.read.length === 0 && <div className="muted">No Claude Code, Codex or Gemini CLI config was found.</div>}
    </div>
  )
}

/** A server's row; `onLogin` starts its OAuth login and resolves with the URL when the app could not open the browser. */
function ServerRow({ s, onToggle, onLogin }: { s: McpPanelServer; onToggle(enable: boolean): void; onLogin(): Promise<string | null> }): React.JSX.Element {
  const toggle = toggleOf(s)
  const [loginUrl, setLoginUrl] = useState<string | null>(null)
  return (
    <li className={`mcp-server state-${s.state}`} data-testid="mcp-server" data-name={s.name} data-state={s.state}>
      <div className="mcp-server-head">
        <span className="mcp-dot" aria-hidden />
        <strong>{s.name}</strong>
        <span className="mcp-state" data-testid="mcp-state">{STATE_LABELS[s.state]}</span>
        <span className="muted">{s.source === 'repo' ? `repository · ${s.file}` : s.source === 'flag' ? '--mcp-config' : 'your config'} · {s.transport}{s.readOnly ? ' · read-only' : ''}</span>
        <span style={{ flex: 1 }} />
        {s.tools.length > 0 && (
          <span className="mcp-tokens" data-testid="mcp-tokens">
            {s.tools.length} tools · {formatTokens(s.tokens)} tokens
          </span>
        )}
        {s.state === 'needs_login' && (
          <button data-testid="mcp-login" title="Log in to this server in your browser; Cortex keeps the tokens in your keys store" onClick={() => void onLogin().then(setLoginUrl)}>
            Log in
          </button>
        )}
        {toggle !== null && (
          <button data-testid="mcp-toggle" onClick={() => onToggle(toggle)}>
            {toggle ? 'Enable' : 'Disable'}
          </button>
        )}
      </div>
      <div className="mcp-detail muted" data-testid="mcp-detail">{s.detail}</div>
      {s.error && <div className="settings-error" data-testid="mcp-error">{s.error}</div>}
      {loginUrl && (
        <div className="muted" data-testid="mcp-login-link">
          Open this address to log in:{' '}
          <a href={loginUrl} target="_blank" rel="noopener noreferrer">
            {loginUrl}
          </a>
        </div>
      )}
      {s.tools.length > 0 && (
        <details className="mcp-tools">
          <summary>tools</summary>
          <ul>
            {s.tools.map((t) => (
              <li key={t.name} title={t.description}>
                <code>{t.name}</code> <span className="muted">{formatTokens(t.tokens)} tokens{t.readOnly ? ' · read-only' : ''}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </li>
  )
}

/** The panel (see the module comment); for the repository of the session on screen, if any. */
export function McpPanel(): React.JSX.Element {
  const api = useAppStore((s) => s.handle.api)
  const view = useCurrentView()
  const repo = view?.repo || undefined
  const sessionId = view?.sessionId
  const [panel, setPanel] = useState<Panel | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [imported, setImported] = useState<McpImportResult | null>(null)
  const scope = useMemo(() => ({ ...(repo ? { repo } : {}), ...(sessionId ? { sessionId } : {}) }), [repo, sessionId])
  const run = async (f: () => Promise<Panel>): Promise<void> => {
    try {
      setPanel(await f())
      setError(null)
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    }
  }
  const load = useCallback(() => run(() => api.mcpServers(scope)), [api, scope])
  useEffect(() => void load(), [load])
  // a server still connecting is asked about again until it is up or failed
  const connecting = panel?.servers.some((s) => s.state === 'connecting') ?? false
  useEffect(() => {
    if (!connecting) return
    const t = setTimeout(() => void load(), 1000)
    return () => clearTimeout(t)
  }, [connecting, panel, load])
  // the login finishes in the background (the browser's redirect reaches the app); Refresh shows it
  const login = async (name: string): Promise<string | null> => {
    try {
      const r = await api.loginMcpServer({ ...scope, name })
      setError(null)
      return r.opened || !r.url ? null : r.url
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
      return null
    }
  }
  const importServers = async (): Promise<void> => {
    try {
      setImported(await api.importMcpServers({ ...(repo ? { repo } : {}) }))
      setError(null)
      await load()
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    }
  }
  return (
    <section className="mcp-panel" data-testid="mcp-panel" aria-label="MCP servers">
      <div className="mcp-panel-head">
        <h3>MCP servers{repo ? <span className="muted"> · {repo}</span> : null}</h3>
        <span style={{ flex: 1 }} />
        <button data-testid="mcp-refresh" title="Ask the session again for each server's state" onClick={() => void load()}>
          Refresh
        </button>
        <button data-testid="mcp-import" title="Add the servers Claude Code, Codex and Gemini CLI use to your Cortex config (existing entries are never replaced)" onClick={() => void importServers()}>
          Import
        </button>
      </div>
      {imported && <ImportReport r={imported} />}
      {error && <div className="settings-error" role="alert" data-testid="mcp-panel-error">{error}</div>}
      {panel?.problems.map((p) => (
        <div key={p} className="settings-error">
          {p}
        </div>
      ))}
      {panel && panel.servers.length === 0 && <div className="muted">No MCP server configured. Import the ones your other agents use, or add one with cortex mcp add.</div>}
      <ul className="mcp-servers">
        {panel?.servers.map((s) => (
          <ServerRow
            key={`${s.source}:${s.file}:${s.name}`}
            s={s}
            onToggle={(enabled) => void run(() => api.setMcpServerEnabled({ ...scope, name: s.name, enabled, ...(enabled && s.hash ? { hash: s.hash } : {}) }))}
            onLogin={() => login(s.name)}
          />
        ))}
      </ul>
    </section>
  )
}
