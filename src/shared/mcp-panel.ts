/**
 * The MCP panel's requests (ADR 0034), spread into the contract like the settings requests: the
 * servers a repository sees with each one's state (from the config, the trust store and, for an open
 * session, its live connection), its tools and what their schemas cost; enable/disable; import of
 * other agents' configs. Pure zod, shared with the renderer.
 */
import { z } from 'zod'

/**
 * A server's state as the panel shows it: `connected` (its session reached it), `connecting`,
 * `failed` (`error` says why), `needs_login` (a remote server waits for an OAuth login:
 * `cortex mcp login NAME`; `error` says so), `untrusted` (the repository names it; off until enabled here),
 * `off` (disabled in the user's config), `shadowed` (another entry of that name wins), `configured`
 * (will start with the next session on this repository).
 */
export const McpPanelStateSchema = z.enum(['connected', 'connecting', 'failed', 'needs_login', 'untrusted', 'off', 'shadowed', 'configured'])
/** See {@link McpPanelStateSchema}. */
export type McpPanelState = z.infer<typeof McpPanelStateSchema>

/** One tool of a connected server: its own name, description, estimated tokens of its declaration, and whether the user marked it read-only. */
export const McpPanelToolSchema = z.object({ name: z.string(), description: z.string(), tokens: z.number().int().nonnegative(), readOnly: z.boolean() })

/** One server in the panel. `detail`: what it runs or reaches (command line or URL); `tokens`: its tools' schemas together. */
export const McpPanelServerSchema = z.object({
  name: z.string(),
  source: z.enum(['flag', 'user', 'repo']),
  file: z.string(),
  transport: z.enum(['stdio', 'http']),
  detail: z.string(),
  state: McpPanelStateSchema,
  error: z.string().optional(),
  readOnly: z.boolean(),
  tools: z.array(McpPanelToolSchema),
  tokens: z.number().int().nonnegative(),
  /** A repository server's trust hash (sha256 hex of its entry): what Enable binds to (the entry shown in `detail`). */
  hash: z.string().optional()
})
/** See {@link McpPanelServerSchema}. */
export type McpPanelServer = z.infer<typeof McpPanelServerSchema>

/** The panel's list: the servers, and problems of files or entries that could not be read (one line each). */
export const McpPanelSchema = z.object({ servers: z.array(McpPanelServerSchema), problems: z.array(z.string()) })
/** See {@link McpPanelSchema}. */
export type McpPanel = z.infer<typeof McpPanelSchema>

/** What an import did: servers added to the user's config, those left out and why, files that could not be read. */
export const McpImportResultSchema = z.object({
  added: z.array(z.object({ name: z.string(), from: z.string() })),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
  problems: z.array(z.string()),
  read: z.array(z.string()),
  file: z.string()
})
/** See {@link McpImportResultSchema}. */
export type McpImportResult = z.infer<typeof McpImportResultSchema>

const repoInput = { repo: z.string().min(1).optional(), sessionId: z.string().min(1).optional() }

/** The MCP panel's requests. */
export const MCP_PANEL_REQUESTS = {
  /** The servers `repo` (absolute host path; absent: the user's own only) sees; with `sessionId`, that session's live states and tools. */
  mcpServers: { input: z.object(repoInput), output: McpPanelSchema },
  /**
   * Enable or disable server `name`: a repository's server is trusted for `repo` in the form the
   * panel showed, `hash` (its entry is re-read and refused when the hash differs; required to
   * enable one), or its trust revoked; a user server gets `"enabled"` in the user's config. Answers
   * the new list. `invalid_input` for an unknown server, one from `--mcp-config`, or a changed entry.
   */
  setMcpServerEnabled: {
    input: z.object({ ...repoInput, name: z.string().min(1).max(200), enabled: z.boolean(), hash: z.string().regex(/^[0-9a-f]{8,64}$/).optional() }),
    output: McpPanelSchema
  },
  /**
   * Start the OAuth login of remote server `name` (state `needs_login`): answers once the
   * authorization URL is known, with `opened` true when the app opened it in the user's browser
   * (the desktop app); otherwise the panel shows it as a link. The login then finishes in the
   * background when the browser's redirect reaches the service's loopback listener (deadline 300 s);
   * the session connects the server at its next turn. `invalid_input` for an unknown or local server.
   */
  loginMcpServer: { input: z.object({ ...repoInput, name: z.string().min(1).max(200) }), output: z.object({ url: z.string(), opened: z.boolean() }) },
  /** Import Claude Code's, Codex's and Gemini CLI's servers into the user's config (never replacing an entry); `dryRun` writes nothing. */
  importMcpServers: { input: z.object({ from: z.array(z.enum(['claude', 'codex', 'gemini'])).min(1).optional(), repo: z.string().min(1).optional(), dryRun: z.boolean().default(false) }), output: McpImportResultSchema }
} as const
