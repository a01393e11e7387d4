/**
 * The MCP extension of a session: one {@link McpConnection} per configured server, started when the
 * session opens (a stdio server inside the session's guest, or in a guest of its own with network
 * when the user allowed it; an HTTP server from the host), awaited at each turn's start (bounded,
 * Stop ends the wait), its enabled tools exposed as tool definitions, everything ended at close.
 * Configs come from the user's own files named by CORTEX_MCP_CONFIG (`--mcp-config FILE`) — never from the repository.
 */
import { delimiter } from 'node:path'
import { errorFields } from '../../../shared/logger-types'
import type { Guest } from '../../guest/guest'
import type { ToolDefinition } from '../../tools/tool'
import type { ExtensionContext, ExtensionProvider } from '../types'
import type { McpServerConfig, McpStdioServerConfig } from './config-types'
import type { McpConnection } from './connection'
import { readMcpConfigFile } from './mcp-json'
import { mcpToolName } from './names'
import { toolEnabled } from './tool-adapter-rules'

/** Env var: the user's MCP config files in `.mcp.json` shape, `path.delimiter`-separated (set by `cortex run --mcp-config FILE`). */
export const MCP_CONFIG_ENV = 'CORTEX_MCP_CONFIG'
/** Longest wait at a turn's start for servers still connecting (ms); they keep connecting for later turns. */
export const MCP_TURN_WAIT_MS = 60_000

/** The provider for `ctx`, or undefined when the user configured no MCP server. */
export function createMcpProvider(ctx: ExtensionContext, env: NodeJS.ProcessEnv = process.env): ExtensionProvider | undefined {
  const files = (env[MCP_CONFIG_ENV] ?? '').split(delimiter).filter(Boolean)
  if (files.length === 0) return undefined
  let configs: McpServerConfig[]
  try {
    // a later file's server replaces an earlier one of the same name
    const byName = new Map(files.flatMap((f) => readMcpConfigFile(f)).map((c) => [c.name, c]))
    configs = [...byName.values()]
  } catch (err) {
    ctx.logger.warn('MCP config not loaded', errorFields(err))
    ctx.emit({ type: 'error', code: 'invalid_input', message: (err as Error).message })
    return undefined
  }
  return configs.length ? new McpProvider(ctx, configs) : undefined
}

/** See the module comment. */
export class McpProvider implements ExtensionProvider {
  readonly name = 'mcp'
  /** One connection per server, once the runtime is loaded (empty before). */
  connections: McpConnection[] = []
  private runtime: typeof import('./runtime') | undefined
  private readonly loading: Promise<void>
  private closed = false
  private readonly ownGuests = new Set<Promise<Guest>>()
  private readonly names = new Map<string, string>()
  private readonly taken = new Set<string>()
  private starts: Promise<void>[] = []

  /** @param ctx the session's extension context @param configs the servers (user config only) */
  constructor(
    private readonly ctx: ExtensionContext,
    configs: readonly McpServerConfig[]
  ) {
    const report = (server: string, message: string): void => ctx.emit({ type: 'error', code: 'guest_failed', message: `MCP server "${server}": ${message}` })
    this.loading = import('./runtime').then(
      (rt) => {
        if (this.closed) return
        this.runtime = rt
        this.connections = configs.map(
          (config) => new rt.McpConnection(config, rt.transportOpener(config, { home: ctx.home ?? '', guestFor: (c, signal) => this.guestFor(c, signal) }), ctx.logger, report,
            ctx.elicit ? (request, signal) => ctx.elicit!(config.name, request, signal) : undefined)
        )
        this.starts = this.connections.map((c) => c.start())
      },
      (err: unknown) => ctx.logger.error('the MCP client could not be loaded', errorFields(err))
    )
  }

  /** Every ready server's enabled tools. */
  tools(): readonly ToolDefinition[] {
    const out: ToolDefinition[] = []
    const rt = this.runtime
    if (!rt) return out
    for (const conn of this.connections) {
      if (conn.state !== 'ready') continue
      const inGuest = conn.config.transport === 'stdio' && !conn.config.network
      for (const tool of conn.tools) {
        if (!toolEnabled(conn.config, tool.name)) continue
        const key = `${conn.config.name}\0${tool.name}`
        let name = this.names.get(key)
        if (!name) {
          name = mcpToolName(conn.config.name, tool.name, this.taken)
          this.names.set(key, name)
        }
        out.push(rt.mcpToolDefinition(conn, tool, name, inGuest))
      }
    }
    return out
  }

  /** Wait (bounded by {@link MCP_TURN_WAIT_MS} and `signal`) for servers still connecting. */
  async turnStarting(signal: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, MCP_TURN_WAIT_MS)
      const done = (): void => {
        clearTimeout(timer)
        signal.removeEventListener('abort', done)
        resolve()
      }
      signal.addEventListener('abort', done, { once: true })
      void this.loading.then(() => Promise.all(this.connections.map((c) => (c.state === 'connecting' ? c.start() : undefined)))).then(done)
    })
  }

  /** End every server and the guests started for servers with network. */
  async close(): Promise<void> {
    this.closed = true
    await this.loading
    await Promise.all(this.connections.map((c) => c.close()))
    await Promise.all([...this.ownGuests].map((g) => g.then((guest) => guest.close()).catch(() => undefined)))
    await Promise.all(this.starts)
  }

  /** The session's guest, or a new guest with network for a server the user allowed it. */
  private guestFor(config: McpStdioServerConfig, signal: AbortSignal): Promise<Guest> {
    if (!config.network) return this.ctx.getGuest()
    if (!this.ctx.startGuest) return Promise.reject(new Error('this session cannot start a guest with network for an MCP server'))
    const started = this.ctx.startGuest('network', signal)
    this.ownGuests.add(started)
    return started
  }
}
