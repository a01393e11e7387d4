/**
 * Parses MCP config files in Claude Code's `.mcp.json` shape (`{"mcpServers": {NAME: entry}}`, an
 * entry being `{command, args, env, cwd}` or `{type: "http"|"sse", url, headers}`) plus Cortex's
 * extras, into {@link McpServerConfig}s. One bad entry is reported and skipped; the others load.
 * `${VAR}` is expanded from the host environment in the user's config only (command, args, env,
 * url, headers, as Claude Code does); a repository's config is taken literally and may not mark
 * anything read-only, ask for network, or set a server's environment or request headers (only the
 * user's own config may: env and headers are where secrets go).
 */
import { z } from 'zod'
import type { McpServerConfig } from './config-types'
import { expandVars, hasVarRef } from './config-expand'

/** Where a config file comes from: the user's own (trusted) or a repository's (untrusted). */
export type McpConfigScope = 'user' | 'repo'

/** A server name: used in tool names `mcp__<name>__<tool>` and trust keys `mcp:<name>`. */
export const SERVER_NAME = /^[A-Za-z0-9_.-]{1,64}$/

const strings = z.array(z.string())
const stringMap = z.record(z.string(), z.string())

/**
 * One server entry as written in a file (Claude Code's fields and Cortex's extras). Unknown keys
 * are ignored with a warning; a known key of the wrong type makes the entry invalid.
 */
export const RawMcpEntrySchema = z.object({
  type: z.enum(['stdio', 'http', 'sse', 'streamable-http']).optional(),
  command: z.string().min(1, 'must not be empty').optional(),
  args: strings.optional(),
  env: stringMap.optional(),
  cwd: z.string().min(1).optional(),
  url: z.string().optional(),
  headers: stringMap.optional(),
  bearerTokenKey: z.string().min(1).optional(),
  readOnly: z.boolean().optional(),
  readOnlyTools: strings.optional(),
  enabledTools: strings.optional(),
  disabledTools: strings.optional(),
  network: z.boolean().optional(),
  timeoutMs: z.number().int().min(1).max(3_600_000).optional(),
  enabled: z.boolean().optional(),
  /** Cortex only: where `cortex mcp import` took this entry from (e.g. `claude:~/.claude.json`). */
  importedFrom: z.string().optional(),
  /** Cortex only: the entry applies only in these repositories (absolute paths); absent: everywhere. */
  repos: strings.optional()
})

/** One server entry as written in a file. */
export type RawMcpEntry = z.infer<typeof RawMcpEntrySchema>

const KNOWN_KEYS = new Set(Object.keys(RawMcpEntrySchema.shape))
/** Keys only the user's own config may set: a repository's entry that sets them has them ignored. */
const USER_ONLY_KEYS = ['readOnly', 'readOnlyTools', 'network', 'bearerTokenKey', 'repos'] as const
/**
 * Keys a repository's entry may not set because they carry the server's environment or credentials
 * (`env` of a local server, `headers` of a remote one): dropped with a note, so only the user's own
 * config supplies a server's environment and secrets.
 */
const REPO_DROPPED_KEYS = ['env', 'headers'] as const

/** One parsed server: its normalized config, whether it is switched on, and notes for the user. */
export interface ParsedMcpServer {
  /** The server's name (the key under `mcpServers`). */
  name: string
  /** The normalized config the MCP client reads. */
  config: McpServerConfig
  /** False when the entry says `"enabled": false`. */
  enabled: boolean
  /** The entry exactly as written (a repository server's trust hash is taken over this). */
  raw: unknown
  /** `importedFrom` of the entry, when `cortex mcp import` wrote it. */
  importedFrom?: string
  /** `repos` of the entry: the repositories it is limited to (user config only). */
  repos?: string[]
  /** Things the user should know that did not stop the entry (ignored keys, unexpanded `${VAR}`). */
  warnings: string[]
}

/** A problem that kept one entry (name set) or the whole file (no name) from loading. */
export interface McpConfigProblem {
  /** The file the problem is in. */
  file: string
  /** The server, when the problem is one entry's. */
  name?: string
  /** One line for the user. */
  message: string
}

/** What a config file yields: the servers that parsed and the problems with the rest. */
export interface ParsedMcpFile {
  servers: ParsedMcpServer[]
  problems: McpConfigProblem[]
}

/** Parse a file's text (JSON) in the `.mcp.json` shape. `file` only names it in messages. */
export function parseMcpConfigText(text: string, opts: { file: string; scope: McpConfigScope; env?: NodeJS.ProcessEnv }): ParsedMcpFile {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    return { servers: [], problems: [{ file: opts.file, message: `not valid JSON: ${(err as Error).message}` }] }
  }
  return parseMcpConfigDoc(doc, opts)
}

/** Parse an already-read document in the `.mcp.json` shape (see {@link parseMcpConfigText}). */
export function parseMcpConfigDoc(doc: unknown, opts: { file: string; scope: McpConfigScope; env?: NodeJS.ProcessEnv }): ParsedMcpFile {
  const problems: McpConfigProblem[] = []
  const servers: ParsedMcpServer[] = []
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    return { servers, problems: [{ file: opts.file, message: 'expected a JSON object like {"mcpServers": {"name": {"command": "…"}}}' }] }
  }
  const map = (doc as Record<string, unknown>).mcpServers
  if (map === undefined) return { servers, problems }
  if (map === null || typeof map !== 'object' || Array.isArray(map)) {
    return { servers, problems: [{ file: opts.file, message: '"mcpServers" must be an object of servers by name' }] }
  }
  for (const [name, raw] of Object.entries(map as Record<string, unknown>)) {
    const r = parseMcpEntry(name, raw, opts.scope, opts.env ?? process.env)
    if ('error' in r) problems.push({ file: opts.file, name, message: r.error })
    else servers.push(r)
  }
  return { servers, problems }
}

/**
 * Parse one entry into a {@link ParsedMcpServer}, or `{ error }` (one line naming the field) when
 * it cannot run: an invalid name, a wrong type, no command and no url, an unset `${VAR}` (user scope).
 */
export function parseMcpEntry(name: string, raw: unknown, scope: McpConfigScope, env: NodeJS.ProcessEnv): ParsedMcpServer | { error: string } {
  if (!SERVER_NAME.test(name)) return { error: `server name "${name}" must be 1-64 letters, digits, "_", "." or "-"` }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { error: 'expected an object with "command" or "url"' }
  const parsed = RawMcpEntrySchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    return { error: `${issue.path.join('.') || 'entry'}: ${issue.message}` }
  }
  const e = parsed.data
  const warnings: string[] = []
  const unknown = Object.keys(raw).filter((k) => !KNOWN_KEYS.has(k))
  if (unknown.length > 0) warnings.push(`ignored: ${unknown.join(', ')}`)
  if (scope === 'repo') {
    const userOnly = USER_ONLY_KEYS.filter((k) => e[k] !== undefined)
    if (userOnly.length > 0) warnings.push(`ignored in a repository's config (only your own config may set them): ${userOnly.join(', ')}`)
    for (const k of USER_ONLY_KEYS) delete e[k]
    const dropped = REPO_DROPPED_KEYS.filter((k) => e[k] !== undefined && Object.keys(e[k]).length > 0)
    if (dropped.length > 0) warnings.push(`dropped from a repository's entry (only your own config supplies a server's environment and headers): ${dropped.map((k) => `${k} ${Object.keys(e[k]!).join(', ')}`).join('; ')}`)
    for (const k of REPO_DROPPED_KEYS) delete e[k]
  }
  const fields = expandFields(e, scope, env, warnings)
  if ('error' in fields) return fields
  const common = {
    name,
    ...(e.readOnly !== undefined && { readOnly: e.readOnly }),
    ...(e.readOnlyTools && { readOnlyTools: e.readOnlyTools }),
    ...(e.enabledTools && { enabledTools: e.enabledTools }),
    ...(e.disabledTools && { disabledTools: e.disabledTools }),
    ...(e.timeoutMs !== undefined && { timeoutMs: e.timeoutMs })
  }
  const isHttp = e.type === 'http' || e.type === 'sse' || e.type === 'streamable-http' || (e.type === undefined && e.command === undefined && e.url !== undefined)
  let config: McpServerConfig
  if (isHttp) {
    if (!fields.url) return { error: `"url" is required for a ${e.type ?? 'remote'} server` }
    if (e.command !== undefined) return { error: 'give "command" (a local server) or "url" (a remote one), not both' }
    let u: URL
    try {
      u = new URL(fields.url)
    } catch {
      return { error: `url: "${fields.url}" is not a URL` }
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `url: only http: and https: are supported, not ${u.protocol}` }
    config = { ...common, transport: 'http', url: fields.url, ...(fields.headers && { headers: fields.headers }), ...(e.bearerTokenKey && { bearerTokenKey: e.bearerTokenKey }) }
  } else {
    if (!fields.command) return { error: '"command" (a local server) or "url" (a remote one) is required' }
    if (e.url !== undefined) return { error: 'give "command" (a local server) or "url" (a remote one), not both' }
    config = {
      ...common,
      transport: 'stdio',
      command: fields.command,
      args: fields.args ?? [],
      env: fields.env ?? {},
      ...(e.cwd && { cwd: e.cwd }),
      ...(e.network !== undefined && { network: e.network })
    }
  }
  return { name, config, enabled: e.enabled ?? true, raw, warnings, ...(e.importedFrom && { importedFrom: e.importedFrom }), ...(e.repos && { repos: e.repos }) }
}

interface Expanded {
  command?: string
  args?: string[]
  env?: Record<string, string>
  url?: string
  headers?: Record<string, string>
}

/** The five fields Claude Code expands, expanded (user) or checked for unexpanded references (repo). */
function expandFields(e: RawMcpEntry, scope: McpConfigScope, env: NodeJS.ProcessEnv, warnings: string[]): Expanded | { error: string } {
  const out: Expanded = {}
  let error: string | undefined
  const one = (field: string, v: string): string => {
    if (scope === 'repo') {
      if (hasVarRef(v)) warnings.push(`${field}: \${…} is not expanded in a repository's config (it never reads your environment)`)
      return v
    }
    const r = expandVars(v, env)
    if ('missing' in r) {
      error ??= `${field}: \${${r.missing}} is not set in the environment (write \${${r.missing}:-default} for a default)`
      return v
    }
    return r.value
  }
  const map = (field: string, m: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, one(`${field}.${k}`, v)]))
  if (e.command !== undefined) out.command = one('command', e.command)
  if (e.args) out.args = e.args.map((a, i) => one(`args.${i}`, a))
  if (e.env) out.env = map('env', e.env)
  if (e.url !== undefined) out.url = one('url', e.url)
  if (e.headers) out.headers = map('headers', e.headers)
  return error === undefined ? out : { error }
}
