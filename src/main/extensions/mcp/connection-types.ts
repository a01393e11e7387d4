/**
 * The contract of an MCP server connection (mcp/connection.ts) with what surrounds it: the
 * transport it is handed (transports.ts opens it), its state and reports as the user sees them, the
 * elicitation hook it asks through, and the error a tool call gives the model.
 */
import type { Transport } from '@modelcontextprotocol/client'

/** An open transport and how to describe why it ended (exit code, stderr tail). */
export interface OpenedTransport {
  transport: Transport
  /** Why the transport ended, in a few words (e.g. "exited with code 1: <stderr tail>"); '' when unknown. */
  describeEnd(): string
  /**
   * True when the transport ended because the server's guest went away (a sandbox switch or a
   * replaced guest removed the container), not because the server stopped; absent: never.
   */
  guestReplaced?(): boolean
  /** A remote server's legacy HTTP+SSE transport, tried once when Streamable HTTP is refused with a 4xx; absent: none. */
  fallback?(): OpenedTransport
  /** True when connecting failed because the user must log in first (OAuth; remote servers only). */
  needsLogin?(): boolean
}

/** Opens a fresh transport to the server (a new process for stdio). Aborting `signal` cancels. */
export type TransportOpener = (signal: AbortSignal) => Promise<OpenedTransport>

/** The state of a connection, as shown to the user. */
export type McpConnectionState = 'connecting' | 'ready' | 'failed' | 'needs-login' | 'closed'

/** Something the user should be told about a server: a crash and restart, a failure (`error`), or that it waits for a login (`notice`). */
export type McpReport = (server: string, message: string, level?: 'error' | 'notice') => void

/**
 * Asks the user a server's question (elicitation, form mode; elicitation-desk.ts) and resolves with
 * the answer for the server; `signal` aborts when the server's request is cancelled.
 */
export type McpElicit = (request: { message: string; requestedSchema: { properties?: Record<string, unknown>; required?: unknown } }, signal: AbortSignal) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean> }>

/** A tool call's failure that the model should see (not an infrastructure error of the turn). */
export class McpCallError extends Error {
  /** @param message the text the model reads */
  constructor(message: string) {
    super(message)
    this.name = 'McpCallError'
  }
}
