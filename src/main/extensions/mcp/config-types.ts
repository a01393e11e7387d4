/**
 * The normalized shape of one MCP server's configuration: what every config source (Cortex's own
 * files, imports of Claude Code / Codex / Gemini configs, `--mcp-config FILE`) is parsed into, and
 * the only shape the MCP client core (connection manager, transports, tool adapter) reads.
 */

/** Options every server has, whatever its transport. */
export interface McpServerCommon {
  /** The server's name as the user wrote it (a config key); tools are named `mcp__<name>__<tool>`. */
  name: string
  /**
   * The user marks every tool of this server read-only: offered in every mode and never asks for
   * approval as a change. Only the USER's config may set this; a server's `readOnlyHint` is never trusted.
   */
  readOnly?: boolean
  /** Tool names (the server's own names, not prefixed) the user marks read-only. */
  readOnlyTools?: string[]
  /** When present, only these tools (server's names) are exposed to the model. */
  enabledTools?: string[]
  /** Tools (server's names) never exposed to the model; applied after `enabledTools`. */
  disabledTools?: string[]
  /** Per-call deadline in milliseconds (default 60 000); a call still running then ends with an error result. */
  timeoutMs?: number
}

/** A local server spoken to over stdin/stdout; it runs inside a guest, never on the host. */
export interface McpStdioServerConfig extends McpServerCommon {
  transport: 'stdio'
  /** The program to run inside the guest (e.g. `npx`, `node`, `uvx`). */
  command: string
  /** Its arguments. */
  args: string[]
  /**
   * Its whole environment beyond the guest's defaults: only from the user's config (a repository
   * entry's `env` is dropped with a note when parsed, config-parse.ts).
   */
  env: Record<string, string>
  /** Working directory inside the guest: absolute, or relative to the repository root (default: the root). */
  cwd?: string
  /**
   * The user allows this server network access: it then runs in a separate hardened guest with
   * network instead of the session's own (network none). Default false.
   */
  network?: boolean
}

/** A remote server reached from the host over Streamable HTTP (with fallback to the older HTTP+SSE). */
export interface McpHttpServerConfig extends McpServerCommon {
  transport: 'http'
  /** The endpoint URL (http: or https:). */
  url: string
  /** Extra request headers sent with every request: only from the user's config (a repository entry's are dropped). */
  headers?: Record<string, string>
  /** Name of a key in the keys store whose value is sent as `Authorization: Bearer <value>`. */
  bearerTokenKey?: string
}

/** One server's normalized configuration. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig

/** The default per-call deadline, in milliseconds. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000
