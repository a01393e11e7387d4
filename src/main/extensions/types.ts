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
import type { McpPromptMessage } from './mcp/prompt-commands'

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
  /** The MCP schema budget saved in Settings ('' or absent: the default); CORTEX_MCP_SCHEMA_BUDGET wins. */
  mcpSchemaBudget?: string | undefined
  /** The events of the session's log when it was resumed (empty for a new session): what extensions rebuild from (MCP schemas the model loaded). */
  resumedEvents?: readonly SessionEvent[]
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

/** An MCP server's prompt offered as the slash command `/name` (`mcp__SERVER__PROMPT`; mcp/prompt-commands.ts). */
export interface McpPromptCommand {
  name: string
  server: string
  /** The prompt's own name on its server. */
  prompt: string
  description?: string
  /** Its declared arguments as a completion hint: `<required> [optional]`. */
  argumentHint?: string
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
  /** The connected servers' prompts as slash commands (the MCP provider only). */
  mcpPrompts?(): readonly McpPromptCommand[]
  /** The user message the prompt `/name` gives for the typed `args` (the MCP provider only; mcp/provider.ts). */
  getMcpPrompt?(name: string, args: string, signal: AbortSignal): Promise<McpPromptMessage>
  /** Resolves once no MCP server is still connecting (bounded; `signal` ends the wait). */
  mcpSettled?(signal: AbortSignal): Promise<void>
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
  /** The connected MCP servers' prompts as slash commands. */
  mcpPrompts(): readonly McpPromptCommand[]
  /**
   * The user message of the MCP prompt `/name` with the typed `args`.
   * @throws CortexError('invalid_input') (no such prompt, a missing argument, the server's error); an AbortError when `signal` aborts
   */
  getMcpPrompt(name: string, args: string, signal: AbortSignal): Promise<McpPromptMessage>
  /** Resolves once no MCP server is still connecting (bounded; `signal` ends the wait); at once without servers. */
  mcpSettled(signal: AbortSignal): Promise<void>
}
