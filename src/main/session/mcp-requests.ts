/**
 * The session service's MCP panel requests (contract: src/shared/mcp-panel.ts; ADR 0034): the
 * servers a repository sees (the MCP config's entries and trust, extensions/mcp/config.ts) merged
 * with an open session's live connections (state, tools, their schemas' tokens); enable/disable
 * through the config's own functions; import of other agents' configs. Decides nothing itself.
 */
import { parseRequest as parse, type CortexApi } from '../../shared/contract'
import type { McpPanel, McpPanelServer, McpPanelState } from '../../shared/mcp-panel'
import { describeWithNotes, disableMcpServer, enableMcpServer, importMcpServers, mcpServersFor, type McpServerEntry } from '../extensions/mcp/config'
import type { McpLiveServer } from '../extensions'
import { mcpOAuthLogin, mcpOAuthStatus, remoteServerFor } from '../extensions/mcp/oauth-login'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'

/** What the MCP requests need from the service. */
export interface McpRequestDeps {
  /** CORTEX_HOME (the user's mcp.json and trust.json). */
  home: string
  /** The live MCP servers of open session `sessionId`, or undefined when it is not open here. */
  live(sessionId: string): readonly McpLiveServer[] | undefined
  /** Where `${VAR}`, HOME and CODEX_HOME come from (default process.env). */
  env?: NodeJS.ProcessEnv
  /** Opens an http(s) URL in the user's browser (the desktop app: shell.openExternal); absent: the panel shows a link. */
  openExternal?(url: string): Promise<void>
  /** Where a background login's failure is logged (default nowhere). */
  logger?: Logger
}

type McpApi = Pick<CortexApi, 'mcpServers' | 'setMcpServerEnabled' | 'importMcpServers' | 'loginMcpServer'>

const LIVE_STATE: Record<McpLiveServer['state'], McpPanelState> = { ready: 'connected', connecting: 'connecting', failed: 'failed', 'needs-login': 'needs_login', closed: 'failed' }

/** One config entry as the panel shows it, with the session's live view of it when there is one. */
function panelServer(e: McpServerEntry, live: McpLiveServer | undefined, home: string): McpPanelServer {
  const c = e.server.config
  const oauth = c.transport === 'http' ? mcpOAuthStatus(home, c.url) : undefined
  // logged in since the session found it asking: it connects at the session's next turn
  if (live?.state === 'needs-login' && oauth === 'logged-in') live = { ...live, error: 'logged in: it connects at your next message' }
  // no session: a server some session found asking for a login says so (as `cortex mcp list` does)
  if (!live && e.state === 'active' && oauth === 'needs-login') live = { name: e.name, state: 'needs-login', error: `needs login: run \`cortex mcp login ${e.name}\` or Log in here`, tools: [] }
  const configState: McpPanelState = e.state === 'untrusted' ? 'untrusted' : e.state === 'disabled' ? 'off' : e.state === 'shadowed' ? 'shadowed' : 'configured'
  const state = e.state === 'active' && live ? LIVE_STATE[live.state] : configState
  const tools = e.state === 'active' && live ? live.tools : []
  return {
    name: e.name,
    source: e.source,
    file: e.file,
    transport: c.transport,
    detail: describeWithNotes(e.server),
    state,
    ...(state === 'failed' || state === 'needs_login' ? { error: live?.error ?? (live?.state === 'closed' ? 'closed' : 'failed') } : {}),
    readOnly: c.readOnly === true,
    tools,
    tokens: tools.reduce((n, t) => n + t.tokens, 0),
    ...(e.trust && { hash: e.trust.hash })
  }
}

/** The MCP panel request methods (see the module comment). */
export function mcpRequests(deps: McpRequestDeps): McpApi {
  const env = deps.env ?? process.env
  const logins = new Map<string, AbortController>() // server URL → the login under way (a new one replaces it)
  const list = (repo: string | undefined, sessionId: string | undefined): McpPanel => {
    const set = mcpServersFor(deps.home, repo, env)
    const live = sessionId ? deps.live(sessionId) ?? [] : []
    return {
      servers: set.entries.filter((e) => e.state !== 'elsewhere').map((e) => panelServer(e, live.find((l) => l.name === e.name), deps.home)),
      problems: set.problems.map((p) => `${p.file}: ${p.message}`)
    }
  }
  return {
    async mcpServers(input) {
      const { repo, sessionId } = parse('mcpServers', input)
      return list(repo, sessionId)
    },
    async setMcpServerEnabled(input) {
      const { repo, sessionId, name, enabled, hash } = parse('setMcpServerEnabled', input)
      // a repository server is enabled only in the form the panel showed (an absent hash is refused for it)
      if (enabled) enableMcpServer(deps.home, repo, name, env, hash ?? '')
      else disableMcpServer(deps.home, repo, name, env)
      return list(repo, sessionId)
    },
    async loginMcpServer(input) {
      const { repo, name } = parse('loginMcpServer', input)
      const { url } = remoteServerFor(deps.home, repo, name)
      logins.get(url)?.abort(new DOMException('replaced by a new login', 'AbortError'))
      const stop = new AbortController()
      logins.set(url, stop)
      const shown = await new Promise<URL>((resolve, reject) => {
        mcpOAuthLogin({ name, url, home: deps.home, signal: stop.signal, open: resolve }).then(
          () => (deps.logger ?? NOOP_LOGGER).info('MCP login done', { server: name }),
          (err: unknown) => {
            reject(err instanceof Error ? err : new Error(String(err))) // before the URL was shown: the request's error
            ;(deps.logger ?? NOOP_LOGGER).warn('MCP login failed', { server: name, ...errorFields(err) })
          }
        ).finally(() => logins.get(url) === stop && logins.delete(url))
      })
      const web = shown.protocol === 'https:' || shown.protocol === 'http:'
      const opened = web && deps.openExternal ? await deps.openExternal(shown.href).then(() => true, () => false) : false
      return { url: web ? shown.href : '', opened }
    },
    async importMcpServers(input) {
      const { from, repo, dryRun } = parse('importMcpServers', input)
      const r = await importMcpServers({ home: deps.home, ...(from ? { from } : {}), ...(repo ? { repo } : {}), dryRun, env })
      return {
        added: r.added.map((a) => ({ name: a.name, from: a.from })),
        skipped: r.skipped.map((s) => ({ name: s.name, reason: s.reason })),
        problems: r.problems,
        read: r.read,
        file: r.file
      }
    }
  }
}
