/**
 * What the session service (service.ts) is created with, {@link SessionServiceOptions}, and what it
 * offers, {@link SessionService}: the session API plus its lifecycle.
 */
import type { CortexApi } from '../../shared/contract'
import type { Logger } from '../../shared/logger-types'
import type { GuestProvider } from '../guest/guest'
import type { ModelSettings } from '../providers'
import type { SecretStore } from '../store/settings-store'
import type { CompactionDefaults } from '../harness/compaction/settings'

/** Options of createSessionService (service.ts). */
export interface SessionServiceOptions {
  /** Data folder (CORTEX_HOME, default ~/.cortex; the Electron app's userData). */
  dataDir: string
  /** Resolved model settings (see providers/resolveModelSettings); saveSettings replaces them for sessions opened afterwards. */
  modelSettings: ModelSettings
  /** Where saveSettings keeps API keys (Electron: safeStorage); default the environment, read-only. */
  secrets?: SecretStore
  /** Starts guests; the Docker provider in production. */
  guests: GuestProvider
  /** Allow root-owned repositories (the guest then runs as uid 0); default from CORTEX_ALLOW_ROOT_REPO. See repo-policy.ts. */
  allowRootRepo?: boolean
  /** Attach the guest as soon as a session opens (default true) rather than at the first tool call. */
  eagerGuest?: boolean
  /** Most sessions (each with at most one guest) open at once in this process; default CORTEX_MAX_SESSIONS (MAX_SESSIONS_ENV, service-inputs.ts) or 8. */
  maxSessions?: number
  /** Where the service, its sessions and their turns log (default: nowhere). */
  logger?: Logger
  /** A model stream silent this long (ms) is aborted and retried once; default CORTEX_STREAM_IDLE_TIMEOUT (seconds), else 120 s. */
  streamIdleTimeoutMs?: number
  /** Saved compaction settings (context window in tokens, threshold as a fraction); the environment wins over them. */
  compaction?: CompactionDefaults
  /** The saved MCP schema budget (Settings `mcpSchemaBudget`; '' the default); CORTEX_MCP_SCHEMA_BUDGET wins over it. */
  mcpSchemaBudget?: string
  /**
   * Sessions are resumed only to review or undo their changes (`cortex changes`, `cortex rewind`),
   * never to run a turn: a resume adds no `session_resumed` notice to the log (unless it closes a
   * turn a crash left open, which the notice explains) and does not record this service's model
   * connection in meta.json. Default false.
   */
  reviewOnly?: boolean
  /** Opens an http(s) URL in the user's browser (the desktop app: shell.openExternal); the MCP login's URL. Absent: the panel shows a link. */
  openExternal?(url: string): Promise<void>
}

/** The session API plus lifecycle: `shutdown` closes every session (stopping turns, removing guests). */
export type SessionService = CortexApi & {
  shutdown(): Promise<void>
  /** Resolve when session `id` has no running turn. */
  idle(sessionId: string): Promise<void>
}
