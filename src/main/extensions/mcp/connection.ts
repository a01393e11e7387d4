/**
 * One MCP server's connection for a session: the SDK client over a transport the caller opens
 * (a program in a guest, or Streamable HTTP from the host), the protocol negotiated by the SDK
 * (`server/discover` for the 2026-07-28 stateless revision, falling back to the `initialize`
 * handshake of earlier revisions), the server's tools, and calls with a deadline and Stop. A server
 * whose connection ends by itself (it crashed, its guest died) is restarted once and reported; a
 * second crash leaves it failed.
 */
import type { CallToolResult, Client, GetPromptResult, Prompt, Tool } from '@modelcontextprotocol/client'
import { abortError, listPrompts, raceSignal } from './connection-helpers'
import type { Logger } from '../../../shared/logger-types'
import { DEFAULT_MCP_TIMEOUT_MS, type McpServerConfig } from './config-types'
import { handshakeOrFallback, MCP_PROBE_TIMEOUT_MS } from './connection-handshake'
import { McpCallError, type McpConnectionState, type McpElicit, type McpReport, type OpenedTransport, type TransportOpener } from './connection-types'

// the handshake and the connection's contract live beside this file; importers keep taking them from here
export { MCP_PROBE_TIMEOUT_MS, McpCallError, type McpConnectionState, type McpElicit, type McpReport, type OpenedTransport, type TransportOpener }

/** How long connecting (transport, negotiation, tool list) may take before the server is failed (ms). */
export const MCP_CONNECT_DEADLINE_MS = 60_000
/** Restarts after a crash, per session. */
export const MCP_MAX_RESTARTS = 1
/** Starts again after the server's guest was replaced (these do not count as crashes), per session. */
export const MCP_MAX_GUEST_RESTARTS = 5

/** One server's connection; see the module comment. */
export class McpConnection {
  state: McpConnectionState = 'connecting'
  /** Why the server failed (state `failed`). */
  error: string | undefined
  /** The server's tools (as listed at connect), empty until ready. */
  tools: Tool[] = []
  /** The server's prompts (`prompts/list` at connect, at most MCP_MAX_PROMPTS); empty when it has none. */
  prompts: Prompt[] = []
  /** Whether the server declared the resources capability (at connect). */
  hasResources = false
  /** The negotiated protocol revision (e.g. `2025-11-25` or `2026-07-28`). */
  protocolVersion: string | undefined
  /** How many times the server was restarted after a crash. */
  restarts = 0
  /** How many times the server was started again because its guest was replaced. */
  guestRestarts = 0
  private client: Client | undefined
  private opened: OpenedTransport | undefined
  private starting: Promise<void> | undefined
  private closing = false
  private readonly lifetime = new AbortController()

  /**
   * @param config the server's config @param open opens a transport @param logger where the connection logs
   * @param report tells the user about crashes, restarts and failures
   */
  constructor(
    readonly config: McpServerConfig,
    private readonly open: TransportOpener,
    private readonly logger: Logger,
    private readonly report: McpReport = () => undefined,
    /** Asks the user a server's question (elicitation, form mode; elicitation-desk.ts); absent: the capability is not declared. */
    private readonly elicit?: McpElicit
  ) {}

  /**
   * Whether the server's tools are offered now: ready, or starting again after it was ready (a crash
   * restart, a replaced guest), when a call waits for the restart instead of the tool vanishing mid-turn.
   */
  get offersTools(): boolean {
    return this.state === 'ready' || (this.state === 'connecting' && this.tools.length > 0)
  }

  /** Connect (once; later calls wait for the same attempt). Never rejects: a failure sets `failed` and `error`. */
  start(): Promise<void> {
    this.starting ??= this.connect().finally(() => {
      this.starting = undefined
    })
    return this.starting
  }

  /**
   * Call `tool` with `args`. Ends at the deadline (`timeoutMs`, default the server's or
   * {@link DEFAULT_MCP_TIMEOUT_MS}) or when `signal` aborts (Stop): the server is sent a cancellation
   * and the call rejects at once.
   * @throws McpCallError for what the model should read (deadline, server gone or failed); an AbortError on Stop
   */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const def = this.tools.find((t) => t.name === tool)
    return this.request(tool, signal, (client, opts) => client.callTool({ name: tool, arguments: args }, { ...opts, ...(def ? { toolDefinition: def } : {}) }))
  }

  /**
   * `prompts/get` of `prompt` with `args` (the prompt's declared arguments by name), with the
   * deadline and Stop of {@link call}. @throws as {@link call} does
   */
  getPrompt(prompt: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    return this.request(`prompt ${prompt}`, signal, (client, opts) => client.getPrompt({ name: prompt, arguments: args }, opts))
  }

  /** `resources/list` (one page from `cursor`) or `resources/read` of a URI, with the deadline and Stop of {@link call}. @throws as {@link call} does */
  resources<T>(what: string, signal: AbortSignal, fn: (client: Client, opts: { signal: AbortSignal; timeout: number }) => Promise<T>): Promise<T> {
    return this.request(what, signal, fn)
  }

  /** One request to the ready server (waiting for a restart in progress), cut at the deadline, on Stop and at close. */
  private async request<T>(what: string, signal: AbortSignal, fn: (client: Client, opts: { signal: AbortSignal; timeout: number }) => Promise<T>): Promise<T> {
    if (this.starting) await raceSignal(this.starting, signal)
    const client = this.client
    if (this.state !== 'ready' || !client) throw new McpCallError(`the MCP server "${this.config.name}" is not available: ${this.error ?? this.state}`)
    const timeoutMs = this.config.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(new McpCallError(`the MCP server "${this.config.name}" did not answer ${what} within ${Math.round(timeoutMs / 1000)} s; the call was cancelled`)), timeoutMs)
    const both = AbortSignal.any([signal, deadline.signal, this.lifetime.signal])
    try {
      return await raceSignal(fn(client, { signal: both, timeout: timeoutMs + 1000 }), both)
    } catch (err) {
      if (signal.aborted) throw signal.reason instanceof Error && signal.reason.name === 'AbortError' ? signal.reason : abortError()
      if (deadline.signal.aborted) throw deadline.signal.reason as McpCallError
      if (this.state !== 'ready' || client !== this.client) {
        throw new McpCallError(`the MCP server "${this.config.name}" ended during the call (${this.error ?? 'connection closed'})${this.state === 'ready' ? '; it was restarted, so the call may be retried if it is safe to repeat' : ''}`)
      }
      throw new McpCallError(`the MCP server "${this.config.name}" answered ${what} with an error: ${(err as Error).message}`)
    } finally {
      clearTimeout(timer)
    }
  }

  /** End the connection and the server (its process, for stdio). Idempotent; never rejects. */
  async close(): Promise<void> {
    if (this.closing) return
    this.closing = true
    this.state = 'closed'
    this.lifetime.abort(abortError())
    const client = this.client
    const opened = this.opened
    this.client = undefined
    await client?.close().catch(() => undefined)
    await opened?.transport.close().catch(() => undefined)
  }

  private async connect(): Promise<void> {
    this.state = 'connecting'
    const started = Date.now()
    const signal = AbortSignal.any([this.lifetime.signal, AbortSignal.timeout(MCP_CONNECT_DEADLINE_MS)])
    let opened: OpenedTransport | undefined
    try {
      opened = await raceSignal(this.open(signal), signal)
      this.opened = opened
      const shake = { server: this.config.name, logger: this.logger, elicit: this.elicit, timeoutMs: MCP_CONNECT_DEADLINE_MS }
      const client = await handshakeOrFallback(opened, signal, shake, (next) => {
        opened = this.opened = next
      })
      const listed = await client.listTools(undefined, { signal, timeout: MCP_CONNECT_DEADLINE_MS })
      if (this.closing) {
        await client.close().catch(() => undefined)
        return
      }
      this.client = client
      this.tools = listed.tools
      this.prompts = await listPrompts(client, this.config.name, signal, MCP_CONNECT_DEADLINE_MS, this.logger)
      this.hasResources = client.getServerCapabilities()?.resources !== undefined
      this.protocolVersion = client.getNegotiatedProtocolVersion()
      this.state = 'ready'
      this.error = undefined
      const ended = opened
      client.onclose = () => this.onEnded(client, ended)
      this.logger.info('MCP server ready', { server: this.config.name, transport: this.config.transport, protocol: this.protocolVersion, tools: listed.tools.length, ms: Date.now() - started })
    } catch (err) {
      const why = opened?.describeEnd()
      await opened?.transport.close().catch(() => undefined)
      if (this.closing) return
      if (opened?.needsLogin?.()) {
        // not a failure: the server waits for `cortex mcp login NAME`; a notice says so, no tools until then
        this.state = 'needs-login'
        this.error = `needs login: run \`cortex mcp login ${this.config.name}\``
        return this.report(this.config.name, this.error, 'notice')
      }
      this.state = 'failed'
      const base = signal.aborted && !this.lifetime.signal.aborted ? `did not connect within ${MCP_CONNECT_DEADLINE_MS / 1000} s` : (err as Error).message
      this.error = why ? `${base} (${why})` : base
      this.logger.warn('MCP server failed to start', { server: this.config.name, error: this.error })
      this.report(this.config.name, `could not start: ${this.error}`)
    }
  }

  /** The connection ended by itself: restart once, then leave it failed. */
  private onEnded(client: Client, opened: OpenedTransport): void {
    if (this.closing || client !== this.client) return
    this.client = undefined
    const why = opened.describeEnd() || 'its connection closed'
    if (opened.guestReplaced?.() && this.guestRestarts < MCP_MAX_GUEST_RESTARTS) {
      // the guest went away under the server (a sandbox switch): not the server's fault, no crash counted
      this.guestRestarts += 1
      this.state = 'failed'
      this.error = 'its guest was replaced; starting it again'
      this.logger.info('MCP server\'s guest was replaced; starting it again', { server: this.config.name })
      void this.start()
      return
    }
    if (this.restarts >= MCP_MAX_RESTARTS) {
      this.state = 'failed'
      this.error = `it stopped again (${why}) and is not restarted a second time`
      this.logger.warn('MCP server stopped again', { server: this.config.name, why })
      this.report(this.config.name, this.error)
      return
    }
    this.restarts += 1
    this.state = 'failed'
    this.error = `it stopped (${why}); restarting`
    this.logger.warn('MCP server stopped; restarting it', { server: this.config.name, why })
    this.report(this.config.name, `stopped (${why}); restarted once`)
    void this.start()
  }
}
