/**
 * Connecting an MCP client over an opened transport (for mcp/connection.ts): the SDK client with
 * our name, the protocol negotiated by the SDK (`server/discover`, falling back to `initialize`),
 * the elicitation handler when the session can ask, and, for a remote server that refuses
 * Streamable HTTP with a 4xx, one more try over its legacy HTTP+SSE transport.
 */
import { Client } from '@modelcontextprotocol/client'
import { errorFields, type Logger } from '../../../shared/logger-types'
import { isHttp4xx } from './connection-helpers'
import type { McpElicit, OpenedTransport } from './connection-types'

/** How long the version probe waits for an answer before falling back to `initialize` (stdio only; ms). */
export const MCP_PROBE_TIMEOUT_MS = 5_000

/** Our name and version as the client tells servers. */
const CLIENT_INFO = { name: 'cortex-code', version: '1' }

/** What a handshake needs besides the transport. */
export interface HandshakeOptions {
  /** The server's name (for the log). */
  server: string
  logger: Logger
  /** Answers the server's questions; absent: the elicitation capability is not declared. */
  elicit?: McpElicit
  /** The SDK's request timeout of the handshake (ms). */
  timeoutMs: number
}

/**
 * A client over `opened`, connected (the protocol negotiated), answering elicitation when the
 * session can ask. @throws what the SDK's connect throws (refused, timed out, aborted by `signal`)
 */
export async function handshake(opened: OpenedTransport, signal: AbortSignal, opts: HandshakeOptions): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: opts.elicit ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: 'auto', probe: { timeoutMs: MCP_PROBE_TIMEOUT_MS } } })
  const elicit = opts.elicit
  if (elicit) {
    // a server's question mid-call becomes a card (ADR 0034); URL mode is not offered, so a form is all that comes
    client.setRequestHandler('elicitation/create', (req, ctx) => {
      const p = req.params as { mode?: string; message: string; requestedSchema?: { properties?: Record<string, unknown>; required?: unknown } }
      if (p.mode === 'url' || !p.requestedSchema) return { action: 'decline' as const }
      return elicit({ message: p.message, requestedSchema: p.requestedSchema }, ctx.mcpReq.signal)
    })
  }
  client.onerror = (err) => opts.logger.debug('MCP protocol note', { server: opts.server, ...errorFields(err) })
  await client.connect(opened.transport, { signal, timeout: opts.timeoutMs })
  return client
}

/**
 * {@link handshake} over `opened`; when a remote server refuses it with an HTTP 4xx (and needs no
 * login), closes `opened`, hands its legacy HTTP+SSE transport to `onFallback` and shakes hands
 * over that instead (once). @throws the handshake's error when there is no fallback to try, or
 * the fallback's own
 */
export async function handshakeOrFallback(opened: OpenedTransport, signal: AbortSignal, opts: HandshakeOptions, onFallback: (next: OpenedTransport) => void): Promise<Client> {
  try {
    return await handshake(opened, signal, opts)
  } catch (err) {
    // a remote server that does not speak Streamable HTTP answers its POST with a 4xx: try the legacy HTTP+SSE transport (the spec's backwards compatibility)
    if (!opened.fallback || signal.aborted || opened.needsLogin?.() || !isHttp4xx(err)) throw err
    await opened.transport.close().catch(() => undefined)
    opts.logger.info('MCP server refused Streamable HTTP; trying the legacy HTTP+SSE transport', { server: opts.server, ...errorFields(err) })
    const next = opened.fallback()
    onFallback(next)
    return handshake(next, signal, opts)
  }
}
