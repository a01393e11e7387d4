/**
 * Converters from other agents' MCP configs to entries of Cortex's user config (the `.mcp.json`
 * shape): Claude Code (`.mcp.json`, `~/.claude.json` top-level and per-project `mcpServers`), Codex
 * (`[mcp_servers.*]` of `~/.codex/config.toml`) and Gemini CLI (`mcpServers` of `settings.json`).
 * Pure functions over parsed documents: every field either maps to a Cortex field or is named in
 * the entry's notes with the reason it was left out; an entry that cannot run is skipped with why.
 */
import type { RawMcpEntry } from './config-parse'

/** The agents whose configs `cortex mcp import` reads. */
export type ImportFormat = 'claude' | 'codex' | 'gemini'

/** One server an import would add. */
export interface ImportCandidate {
  name: string
  /** The entry for Cortex's user config. */
  entry: RawMcpEntry
  /** Where it came from (the file, and the project for Claude's per-project servers). */
  from: string
  /** Fields left out, each with its reason. */
  notes: string[]
}

/** One server an import leaves out, and why. */
export interface ImportSkip {
  name: string
  from: string
  reason: string
}

/** What one converter found in one document. */
export interface Converted {
  candidates: ImportCandidate[]
  skipped: ImportSkip[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string')
const isStringMap = (v: unknown): v is Record<string, string> => isObj(v) && Object.values(v).every((s) => typeof s === 'string')

/** Take `src[key]` into `out[to]` when `ok`, else note it; returns whether the key was present. */
function copy(src: Obj, key: string, out: Obj, to: string, ok: (v: unknown) => boolean, notes: string[], want: string): void {
  if (src[key] === undefined) return
  if (ok(src[key])) out[to] = src[key]
  else notes.push(`${key}: not taken (expected ${want})`)
}

/** Cortex's own keys an import never carries over: what they grant is the user's to give, in Cortex. */
const OWN_KEYS: Record<string, string> = {
  network: 'a network for the server is yours to allow: cortex mcp add … --network, or "network": true in your own mcp.json',
  readOnly: 'offering its tools outside Agent mode is yours to decide: cortex mcp add … --read-only, or "readOnly" in your own mcp.json'
}

/** Note every key of `src` not in `handled`, with `why` (or a generic reason). */
function noteRest(src: Obj, handled: readonly string[], notes: string[], why: Record<string, string> = {}): void {
  for (const k of Object.keys(src)) {
    if (!handled.includes(k)) notes.push(`${k}: not imported (${why[k] ?? OWN_KEYS[k] ?? 'Cortex has no such setting'})`)
  }
}

/**
 * Claude Code: a `.mcp.json` or `~/.claude.json` document. Top-level servers are taken; a project's
 * (`projects[path].mcpServers`) only for `repo` (the entry then carries `repos: [repo]`), others
 * skipped naming their project. `${VAR}` references are kept: Cortex expands them the same way.
 */
export function fromClaude(doc: unknown, file: string, repo?: string): Converted {
  const out: Converted = { candidates: [], skipped: [] }
  if (!isObj(doc)) return { ...out, skipped: [{ name: '*', from: file, reason: 'not a JSON object' }] }
  const one = (servers: unknown, from: string, repos?: string[]): void => {
    if (servers === undefined) return
    if (!isObj(servers)) return void out.skipped.push({ name: '*', from, reason: '"mcpServers" is not an object' })
    for (const [name, e] of Object.entries(servers)) {
      if (!isObj(e)) {
        out.skipped.push({ name, from, reason: 'entry is not an object' })
        continue
      }
      const entry: Obj = {}
      const notes: string[] = []
      const type = e.type
      if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'sse') {
        out.skipped.push({ name, from, reason: `type "${String(type)}" is not supported (stdio, http or sse)` })
        continue
      }
      if (type !== undefined && type !== 'stdio') entry.type = type
      copy(e, 'command', entry, 'command', (v) => typeof v === 'string', notes, 'a string')
      copy(e, 'args', entry, 'args', isStrings, notes, 'strings')
      copy(e, 'env', entry, 'env', isStringMap, notes, 'an object of strings')
      copy(e, 'cwd', entry, 'cwd', (v) => typeof v === 'string', notes, 'a string')
      copy(e, 'url', entry, 'url', (v) => typeof v === 'string', notes, 'a string')
      copy(e, 'headers', entry, 'headers', isStringMap, notes, 'an object of strings')
      noteRest(e, ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers'], notes, {
        headersHelper: 'Cortex runs no host command to make headers',
        oauth: 'OAuth sign-in is not supported by this import'
      })
      if (repos) entry.repos = repos
      out.candidates.push({ name, entry: entry, from, notes })
    }
  }
  one(doc.mcpServers, file)
  if (isObj(doc.projects)) {
    for (const [path, p] of Object.entries(doc.projects)) {
      if (!isObj(p) || !isObj(p.mcpServers) || Object.keys(p.mcpServers).length === 0) continue
      if (repo !== undefined && path === repo) one(p.mcpServers, `${file} (project ${path})`, [repo])
      else for (const name of Object.keys(p.mcpServers)) out.skipped.push({ name, from: `${file} (project ${path})`, reason: `belongs to project ${path}: run the import there (--repo ${path})` })
    }
  }
  return out
}

/**
 * Codex: the parsed `config.toml`. Host environment references become `${VAR}`s Cortex expands
 * from the environment at start: `env_vars` → `env[V] = "${V:-}"`, `env_http_headers` →
 * `headers[H] = "${V}"`, `bearer_token_env_var` → `Authorization: Bearer ${V}`.
 */
export function fromCodex(doc: unknown, file: string): Converted {
  const out: Converted = { candidates: [], skipped: [] }
  const servers = isObj(doc) ? doc.mcp_servers : undefined
  if (servers === undefined) return out
  if (!isObj(servers)) return { ...out, skipped: [{ name: '*', from: file, reason: '[mcp_servers] is not a table' }] }
  for (const [name, e] of Object.entries(servers)) {
    if (!isObj(e)) {
      out.skipped.push({ name, from: file, reason: 'entry is not a table' })
      continue
    }
    const entry: Obj = {}
    const notes: string[] = []
    copy(e, 'command', entry, 'command', (v) => typeof v === 'string', notes, 'a string')
    copy(e, 'args', entry, 'args', isStrings, notes, 'strings')
    copy(e, 'env', entry, 'env', isStringMap, notes, 'a table of strings')
    copy(e, 'cwd', entry, 'cwd', (v) => typeof v === 'string', notes, 'a string')
    if (e.env_vars !== undefined) {
      const names = Array.isArray(e.env_vars) ? e.env_vars.map((v) => (typeof v === 'string' ? v : isObj(v) && typeof v.name === 'string' ? v.name : undefined)) : []
      if (names.length === 0 || names.some((n) => n === undefined || !/^[A-Za-z_]\w*$/.test(n))) notes.push('env_vars: not taken (expected variable names)')
      else entry.env = { ...(entry.env as Obj | undefined), ...Object.fromEntries(names.map((n) => [n!, `\${${n!}:-}`])) }
    }
    if (e.url !== undefined) {
      copy(e, 'url', entry, 'url', (v) => typeof v === 'string', notes, 'a string')
      if (entry.url !== undefined) entry.type = 'http'
    }
    copy(e, 'http_headers', entry, 'headers', isStringMap, notes, 'a table of strings')
    if (e.env_http_headers !== undefined) {
      if (isStringMap(e.env_http_headers)) entry.headers = { ...(entry.headers as Obj | undefined), ...Object.fromEntries(Object.entries(e.env_http_headers).map(([h, v]) => [h, `\${${v}}`])) }
      else notes.push('env_http_headers: not taken (expected a table of strings)')
    }
    if (typeof e.bearer_token_env_var === 'string') entry.headers = { ...(entry.headers as Obj | undefined), Authorization: `Bearer \${${e.bearer_token_env_var}}` }
    else if (e.bearer_token_env_var !== undefined) notes.push('bearer_token_env_var: not taken (expected a string)')
    if (typeof e.enabled === 'boolean') entry.enabled = e.enabled
    copy(e, 'enabled_tools', entry, 'enabledTools', isStrings, notes, 'strings')
    copy(e, 'disabled_tools', entry, 'disabledTools', isStrings, notes, 'strings')
    if (e.tool_timeout_sec !== undefined) {
      const s = e.tool_timeout_sec
      if (typeof s === 'number' && s > 0 && s <= 3600) entry.timeoutMs = Math.round(s * 1000)
      else notes.push('tool_timeout_sec: not taken (expected seconds above 0, at most 3600)')
    }
    noteRest(e, ['command', 'args', 'env', 'cwd', 'env_vars', 'url', 'http_headers', 'env_http_headers', 'bearer_token_env_var', 'enabled', 'enabled_tools', 'disabled_tools', 'tool_timeout_sec'], notes, {
      startup_timeout_sec: 'Cortex has no separate start-up deadline',
      startup_timeout_ms: 'Cortex has no separate start-up deadline',
      bearer_token: 'a token written in the file is not copied: set bearer_token_env_var instead',
      required: 'a server that fails to start never stops a Cortex session',
      oauth: 'OAuth sign-in is not supported by this import'
    })
    out.candidates.push({ name, entry: entry, from: file, notes })
  }
  return out
}

/** Gemini's `$VAR` (outside `${…}`) as `${VAR}`, which Cortex expands; `${VAR}` unchanged. */
const dollarVars = (s: string): string => s.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, '${$1}')
const mapStrings = (m: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, dollarVars(v)]))

/**
 * Gemini CLI: the parsed `settings.json`. `url` is an SSE endpoint, `httpUrl` a Streamable HTTP
 * one; `timeout` is in milliseconds; `trust` (no confirmations) is never imported.
 */
export function fromGemini(doc: unknown, file: string): Converted {
  const out: Converted = { candidates: [], skipped: [] }
  const servers = isObj(doc) ? doc.mcpServers : undefined
  if (servers === undefined) return out
  if (!isObj(servers)) return { ...out, skipped: [{ name: '*', from: file, reason: '"mcpServers" is not an object' }] }
  for (const [name, e] of Object.entries(servers)) {
    if (!isObj(e)) {
      out.skipped.push({ name, from: file, reason: 'entry is not an object' })
      continue
    }
    const entry: Obj = {}
    const notes: string[] = []
    if (typeof e.command === 'string') entry.command = dollarVars(e.command)
    if (isStrings(e.args)) entry.args = e.args.map(dollarVars)
    if (isStringMap(e.env)) entry.env = mapStrings(e.env)
    copy(e, 'cwd', entry, 'cwd', (v) => typeof v === 'string', notes, 'a string')
    if (typeof e.httpUrl === 'string') Object.assign(entry, { type: 'http', url: dollarVars(e.httpUrl) })
    else if (typeof e.url === 'string') Object.assign(entry, { type: e.type === 'http' ? 'http' : 'sse', url: dollarVars(e.url) })
    if (typeof e.httpUrl === 'string' && e.url !== undefined) notes.push('url: not taken (httpUrl is used)')
    if (isStringMap(e.headers)) entry.headers = mapStrings(e.headers)
    if (typeof e.timeout === 'number' && Number.isInteger(e.timeout) && e.timeout > 0) entry.timeoutMs = Math.min(e.timeout, 3_600_000)
    copy(e, 'includeTools', entry, 'enabledTools', isStrings, notes, 'strings')
    copy(e, 'excludeTools', entry, 'disabledTools', isStrings, notes, 'strings')
    for (const k of ['command', 'args', 'env', 'headers', 'httpUrl', 'timeout'] as const) {
      if (e[k] !== undefined && entry[k === 'httpUrl' ? 'url' : k === 'timeout' ? 'timeoutMs' : k] === undefined) notes.push(`${k}: not taken (wrong type)`)
    }
    noteRest(e, ['command', 'args', 'env', 'cwd', 'url', 'httpUrl', 'headers', 'timeout', 'includeTools', 'excludeTools', 'type'], notes, {
      trust: "it skips every confirmation in Gemini; Cortex's approvals and modes decide (mark tools read-only with readOnlyTools yourself)",
      oauth: 'OAuth sign-in is not supported by this import',
      authProviderType: 'OAuth sign-in is not supported by this import',
      description: 'not needed'
    })
    out.candidates.push({ name, entry: entry, from: file, notes })
  }
  return out
}
