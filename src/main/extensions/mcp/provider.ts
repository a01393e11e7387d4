/**
 * The MCP extension of a session: one {@link McpConnection} per configured server, started when the
 * session opens (a stdio server inside the session's guest, or in a guest of its own with network
 * when the user allowed it; an HTTP server from the host), awaited at each turn's start (bounded,
 * Stop ends the wait), its enabled tools exposed as tool definitions, everything ended at close.
 * Configs come from config-load.ts (ADR 0033): a repository's server starts only once the user
 * enabled its exact entry, and stops at the next turn's start (or trust decision) once it changed.
 */
import { isAbsolute } from 'node:path'
import { errorFields } from '../../../shared/logger-types'
import type { Guest } from '../../guest/guest'
import type { ToolDefinition } from '../../tools/tool'
import type { TrustItem } from '../../../shared/extensions'
import type { ExtensionContext, ExtensionProvider, McpPromptCommand } from '../types'
import type { McpServerConfig, McpStdioServerConfig } from './config-types'
import type { McpConnection } from './connection'
import { sessionMcpConfig } from './config'
import { canonicalJson } from './config-expand'
import type { McpConfigSet } from './config-load'
import { mcpToolName } from './names'
import { mcpOAuthStatus } from './oauth-store'
import { toolEnabled } from './tool-adapter-rules'
import { promptArgumentHint, promptArguments, promptMessage, type McpPromptMessage } from './prompt-commands'
import { CortexError } from '../../../shared/errors'

export { MCP_CONFIG_ENV } from './config-load'
/** Longest wait at a turn's start for servers still connecting (ms); they keep connecting for later turns. */
export const MCP_TURN_WAIT_MS = 60_000

/**
 * The provider for `ctx`, or undefined when no config names a server (ADR 0033: `--mcp-config`
 * files, CORTEX_HOME/mcp.json, the repository's `.cortex/mcp.json` and `.mcp.json`). Only servers the
 * user configured or enabled for this repository start; the repository's others are trust items.
 * A problem in the user's own files is reported as an error event (the rest still load); the
 * repository's problems are logged (`cortex mcp list` shows them).
 */
export function createMcpProvider(ctx: ExtensionContext, env: NodeJS.ProcessEnv = process.env): ExtensionProvider | undefined {
  const load = (): McpConfigSet => sessionMcpConfig(ctx, env)
  const set = load()
  for (const p of set.problems) {
    const message = `MCP config ${p.file}: ${p.name ? `server "${p.name}": ` : ''}${p.message}`
    ctx.logger.warn(message)
    if (isAbsolute(p.file)) ctx.emit({ type: 'error', code: 'invalid_input', message })
  }
  return set.servers.length > 0 || set.untrusted.length > 0 ? new McpProvider(ctx, set, load) : undefined
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
  private readonly promptNames = new Map<string, string>()
  private readonly promptsTaken = new Set<string>()

  /** The repository's servers waiting for the user (the latest load). */
  private untrusted: readonly TrustItem[]

  /**
   * @param ctx the session's extension context
   * @param set the servers that may start and the untrusted ones (config-load.ts)
   * @param reload reads the configs again (turn start, trust decision)
   */
  constructor(
    private readonly ctx: ExtensionContext,
    set: McpConfigSet,
    private readonly reload: () => McpConfigSet = () => set
  ) {
    this.untrusted = set.untrusted
    this.loading = import('./runtime').then(
      (rt) => {
        if (this.closed) return
        this.runtime = rt
        return this.sync(set.servers)
      },
      (err: unknown) => ctx.logger.error('the MCP client could not be loaded', errorFields(err))
    )
  }

  /** The repository's servers not enabled in their current form. */
  trustItems(): readonly TrustItem[] {
    return this.untrusted
  }

  /** A trust decision: start what is now enabled. */
  async onTrustChanged(): Promise<void> {
    await this.refresh()
  }

  /**
   * Read the configs again: start servers now allowed, end those no longer allowed or whose config
   * changed (a changed one starts again in its new form when allowed).
   */
  private async refresh(): Promise<void> {
    let set: McpConfigSet
    try {
      set = this.reload()
    } catch (err) {
      this.ctx.logger.warn('MCP config not reloaded', errorFields(err))
      return
    }
    this.untrusted = set.untrusted
    await this.loading
    if (!this.closed && this.runtime) await this.sync(set.servers)
  }

  /** Make the connections match `configs` (by name and canonical config). */
  private async sync(configs: readonly McpServerConfig[]): Promise<void> {
    const rt = this.runtime!
    const wanted = new Map(configs.map((c) => [c.name, canonicalJson(c)]))
    const gone = this.connections.filter((c) => wanted.get(c.config.name) !== canonicalJson(c.config))
    this.connections = this.connections.filter((c) => !gone.includes(c))
    const have = new Set(this.connections.map((c) => c.config.name))
    const report = (server: string, message: string, level?: 'error' | 'notice'): void =>
      this.ctx.emit(level === 'notice' ? { type: 'extension_notice', kind: 'mcp', message: `MCP server "${server}": ${message}` } : { type: 'error', code: 'guest_failed', message: `MCP server "${server}": ${message}` })
    for (const config of configs) {
      if (have.has(config.name)) continue
      const elicit = this.ctx.elicit
      const conn = new rt.McpConnection(config, rt.transportOpener(config, { home: this.ctx.home ?? '', guestFor: (c, signal) => this.guestFor(c, signal) }), this.ctx.logger, report,
        elicit ? (request, signal) => elicit(config.name, request, signal) : undefined)
      this.connections.push(conn)
      this.starts.push(conn.start())
    }
    await Promise.all(gone.map((c) => c.close()))
  }

  /** Every ready server's enabled tools, and `mcp_read_resource` while some ready server has resources. */
  tools(): readonly ToolDefinition[] {
    const out: ToolDefinition[] = []
    const rt = this.runtime
    if (!rt) return out
    for (const conn of this.connections) {
      if (!conn.offersTools) continue
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
    const withResources = (): McpConnection[] => this.connections.filter((c) => c.state === 'ready' && c.hasResources)
    if (withResources().length > 0) out.push(rt.mcpReadResourceTool(withResources)) // read-only: every mode
    return out
  }

  /** Every ready server's prompts as slash commands named `mcp__SERVER__PROMPT` (prompt-commands.ts). */
  mcpPrompts(): readonly McpPromptCommand[] {
    return this.connections.filter((c) => c.state === 'ready').flatMap((conn) => conn.prompts.map((p) => {
      const hint = promptArgumentHint(p)
      const description = p.description ?? p.title
      return { name: this.promptName(conn.config.name, p.name), server: conn.config.name, prompt: p.name, ...(description ? { description } : {}), ...(hint ? { argumentHint: hint } : {}) }
    }))
  }

  /**
   * The user message the prompt `/name` gives with the typed `args` (`prompts/get`, with the server's
   * deadline; aborting `signal` ends it at once).
   * @throws CortexError('invalid_input') for an unknown prompt, a missing argument or the server's error; an AbortError on Stop
   */
  async getMcpPrompt(name: string, args: string, signal: AbortSignal): Promise<McpPromptMessage> {
    for (const conn of this.connections) {
      const p = conn.prompts.find((q) => this.promptName(conn.config.name, q.name) === name)
      if (!p || conn.state === 'closed') continue
      const values = promptArguments(name, p, args)
      try {
        return promptMessage(name, await conn.getPrompt(p.name, values, signal))
      } catch (err) {
        if ((err as Error).name === 'McpCallError') throw new CortexError('invalid_input', `/${name}: ${(err as Error).message}`)
        throw err
      }
    }
    throw new CortexError('invalid_input', `/${name}: no connected MCP server offers this prompt now`)
  }

  /** The slash command name of `server`'s `prompt`, the same for the whole session. */
  private promptName(server: string, prompt: string): string {
    const key = `${server}\0${prompt}`
    let name = this.promptNames.get(key)
    if (!name) this.promptNames.set(key, (name = mcpToolName(server, prompt, this.promptsTaken)))
    return name
  }

  /** Wait (bounded by {@link MCP_TURN_WAIT_MS} and `signal`) for servers still connecting, and those logged in since they needed it. */
  async turnStarting(signal: AbortSignal): Promise<void> {
    await this.settled(signal, () => this.refresh())
  }

  /** Wait (bounded like {@link turnStarting}) until no server is still connecting: a typed `/mcp__…` prompt waits for its server. */
  async mcpSettled(signal: AbortSignal): Promise<void> {
    await this.settled(signal, () => this.loading)
  }

  private async settled(signal: AbortSignal, first: () => Promise<void>): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, MCP_TURN_WAIT_MS)
      const done = (): void => {
        clearTimeout(timer)
        signal.removeEventListener('abort', done)
        resolve()
      }
      signal.addEventListener('abort', done, { once: true })
      // a server that needed a login connects again once the user has logged in (`cortex mcp login`, the panel)
      const loggedIn = (c: McpConnection): boolean => c.state === 'needs-login' && c.config.transport === 'http' && mcpOAuthStatus(this.ctx.home ?? '', c.config.url) === 'logged-in'
      void first().then(() => Promise.all(this.connections.map((c) => (c.state === 'connecting' || loggedIn(c) ? c.start() : undefined)))).then(done)
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
