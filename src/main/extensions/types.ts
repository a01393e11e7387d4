/**
 * The narrow interface between the session and its extensions (MCP servers, hooks, skills, custom
 * commands, subagents, the project environment): each capability is an {@link ExtensionProvider}
 * made by one factory in index.ts; the session and the harness see only {@link SessionExtensions}.
 */
import type { SessionEvent } from '../../shared/events'
import type { TrustItem } from '../../shared/extensions'
import type { Logger } from '../../shared/logger-types'
import type { Mode, ModeLock } from '../../shared/modes'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { Guest } from '../guest/guest'
import type { ToolDefinition } from '../tools/tool'
import type { TrustStore } from './trust-store'
import type { Elicit } from './mcp/elicitation-desk'

/** What a provider is made with, per session. */
export interface ExtensionContext {
  sessionId: string
  /** The repository's absolute host path (the user chose it; everything inside it is untrusted). */
  repo: string
  /** CORTEX_HOME: the user's own config lives here (trusted); absent in some tests: no user config. */
  home?: string
  /** The session's guest, started if need be; rejects with CortexError when it cannot start. */
  getGuest(): Promise<Guest>
  /** Emit a session event (persisted unless ephemeral). */
  emit(event: SessionEvent): void
  logger: Logger
  /** The user's decisions about repository extensions; absent without a home (nothing from the repository is trusted then). */
  trust?: TrustStore
  /**
   * Start another guest of this session's repository under `sandbox` (an MCP server the user allowed
   * network runs in one of its own); the caller closes it. Aborting cancels the start. Absent: none.
   */
  startGuest?(sandbox: SandboxPolicy, signal: AbortSignal): Promise<Guest>
  /** The model's context window in tokens (compaction's settings), for what is capped by a share of it (skills, MCP schema deferral); absent: 128k assumed. */
  contextWindow?: number
  /** The mode and lock in force now (MCP schema deferral costs only what the mode offers); absent: not known. */
  modeNow?(): { mode: Mode; lock: ModeLock | null }
  /** Ask the user an MCP server's question (elicitation, mcp/elicitation-desk.ts); resolves with the answer, never rejects. Absent: decline. */
  elicit?: Elicit
}

/** One MCP server as a session sees it now (the app's MCP panel): its connection state and its tools with their schemas' estimated tokens. */
export interface McpLiveServer {
  name: string
  state: 'connecting' | 'ready' | 'failed' | 'needs-login' | 'closed'
  /** Why it failed (or what to do: log in). */
  error?: string
  tools: Array<{ name: string; description: string; tokens: number; readOnly: boolean }>
}

/** One capability's contribution to a session. Every method is optional; none may throw (log and degrade instead). */
export interface ExtensionProvider {
  /** A short name for logs ("mcp", "hooks"). */
  readonly name: string
  /** Tools this provider adds now; `readOnly` decides the modes (shared/modes.ts offeredTools). */
  tools?(): readonly ToolDefinition[]
  /** Model-facing sections appended to the system prompt, each short (a skills list, MCP server notes). */
  promptSections?(): readonly string[]
  /** The repository's items that wait for the user's decision now (untrusted, or changed since enabled). */
  trustItems?(): readonly TrustItem[]
  /** Called at each turn's start before its first request (reload what changed); must honour `signal`. */
  turnStarting?(signal: AbortSignal): Promise<void>
  /** The user enabled or kept off items: reload what is now trusted. */
  onTrustChanged?(): Promise<void>
  /** Release what the provider holds (server processes, guests); bounded, never rejects. */
  close?(): Promise<void>
  /** The MCP servers it runs and their state (the MCP provider only). */
  mcpServers?(): readonly McpLiveServer[]
}

/** Everything the session asks of its extensions, merged over the providers. */
export interface SessionExtensions {
  /** Every provider's tools now (the turn merges them into the catalog: harness/turn-tools.ts). */
  tools(): readonly ToolDefinition[]
  /** Every provider's prompt sections, in provider order. */
  promptSections(): readonly string[]
  /** Reload at a turn's start, then emit `extensions_untrusted` when the waiting set changed. Never rejects. */
  turnStarting(signal: AbortSignal): Promise<void>
  /**
   * The user's decision on the card (op `trust_extensions`).
   * @throws CortexError('invalid_input') when an item is not waiting with that hash (it changed since the card was shown)
   */
  decide(items: ReadonlyArray<{ key: string; hash: string }>, enable: boolean): Promise<void>
  /** Close every provider (each bounded). */
  close(): Promise<void>
  /** Every MCP server the session runs, with its state and tools (the MCP panel). */
  mcpServers(): readonly McpLiveServer[]
}
