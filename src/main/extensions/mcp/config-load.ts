/**
 * Loads every MCP config a session sees and decides which servers may start (ADR 0033):
 * `--mcp-config` files (CORTEX_MCP_CONFIG; the last given first; one inside the repository is refused), the user's CORTEX_HOME/mcp.json, then the repository's
 * `.cortex/mcp.json` and `.mcp.json`. On a name collision the first of that order wins (so the
 * user's config always beats a repository's) and the others are listed as shadowed. A repository's
 * server starts only once the user trusted its exact entry for that repository (trust key
 * `mcp:<name>`, hash = sha256 of the canonical entry and the repository files it runs, entry-trust.ts):
 * a new or changed entry, or a changed program, is an untrusted item.
 */
import { existsSync, readFileSync } from 'node:fs'
import { delimiter, join, resolve } from 'node:path'
import type { TrustItem } from '../../../shared/extensions'
import type { McpServerConfig } from './config-types'
import { repoEntryTrust } from './entry-trust'
import { flagFileRefusal } from './flag-file-policy'
import { parseMcpConfigText, type McpConfigProblem, type McpConfigScope, type ParsedMcpServer } from './config-parse'

/** Env var: `--mcp-config` files of `cortex run`, `path.delimiter`-separated; user-level trust. */
export const MCP_CONFIG_ENV = 'CORTEX_MCP_CONFIG'
/** The user's own MCP config file, under CORTEX_HOME. */
export const USER_MCP_FILE = 'mcp.json'
/** A repository's config files, relative to its root, strongest first. */
export const REPO_MCP_FILES = ['.cortex/mcp.json', '.mcp.json'] as const

/** Where an entry was read from. */
export type McpEntrySource = 'flag' | 'user' | 'repo'

/**
 * What became of one entry: `active` (will start), `disabled` (`"enabled": false`), `untrusted`
 * (a repository server the user has not enabled in this form), `shadowed` (another entry of the
 * same name wins), `elsewhere` (a user entry limited by `repos` to other repositories).
 */
export type McpEntryState = 'active' | 'disabled' | 'untrusted' | 'shadowed' | 'elsewhere'

/** A repository server's standing in the trust store. */
export interface McpEntryTrust {
  /** `mcp:<name>`. */
  key: string
  /** sha256 hex of the canonical entry. */
  hash: string
  /** `trusted`: this exact entry is enabled; `new`: never enabled; `changed`: enabled before in another form. */
  state: 'trusted' | 'new' | 'changed'
}

/** One server entry found in some config file, and what became of it. */
export interface McpServerEntry {
  name: string
  source: McpEntrySource
  /** The file: absolute for user and flag files, relative to the repository for its own. */
  file: string
  server: ParsedMcpServer
  state: McpEntryState
  /** Set for repository entries (unless shadowed). */
  trust?: McpEntryTrust
  /** For a shadowed entry: the file of the entry that wins. */
  shadowedBy?: string
}

/** The subset of the foundation's TrustStore this module reads. */
export interface McpTrustLookup {
  isTrusted(repo: string, key: string, hash: string): boolean
  list(repo: string): readonly { key: string }[]
}

/** An untrusted repository server, as the trust card shows it (`detail`: exactly what will run, and where). */
export type McpTrustItem = TrustItem

/** Everything a session (or `cortex mcp list`) needs to know about its MCP servers. */
export interface McpConfigSet {
  /** Every entry of every file, in precedence order. */
  entries: McpServerEntry[]
  /** The servers that may start now (state `active`), one per name. */
  servers: McpServerConfig[]
  /** Repository servers awaiting the user's decision. */
  untrusted: McpTrustItem[]
  /** Files or entries that could not be read, each one line. */
  problems: McpConfigProblem[]
}

/** What {@link loadMcpConfig} reads from. */
export interface McpConfigInputs {
  /** CORTEX_HOME; absent: no user config (some tests). */
  home?: string
  /** The repository's real host path; absent: user-level servers only. */
  repo?: string
  trust?: McpTrustLookup
  /** Reads a repository file without following links: null when absent; throws when a link, not a regular file or too big. */
  readRepoFile?: (repo: string, rel: string) => string | null
  /** The environment `${VAR}` expands from and CORTEX_MCP_CONFIG is read from (default process.env). */
  env?: NodeJS.ProcessEnv
}

/** Read and merge every config (see the module comment). Never throws for bad files: they become problems. */
export function loadMcpConfig(inputs: McpConfigInputs): McpConfigSet {
  const env = inputs.env ?? process.env
  const problems: McpConfigProblem[] = []
  const found: { source: McpEntrySource; file: string; server: ParsedMcpServer }[] = []
  // a name whose entry in a user-level file is broken stays that file's: no repository entry takes it over
  const reserved = new Map<string, string>()
  const take = (source: McpEntrySource, file: string, text: string | null, scope: McpConfigScope): void => {
    if (text === null) return
    const parsed = parseMcpConfigText(text, { file, scope, env })
    problems.push(...parsed.problems)
    if (scope === 'user') for (const p of parsed.problems) if (p.name !== undefined && !reserved.has(p.name)) reserved.set(p.name, file)
    for (const server of parsed.servers) found.push({ source, file, server })
  }
  // the last --mcp-config given wins a name among them, as a later flag overrides an earlier one
  for (const file of flagFiles(env).reverse()) {
    // a flag file the guest can write is not the user's: refused, never read (flag-file-policy.ts)
    const refused = flagFileRefusal(file, inputs.repo, inputs.home)
    if (refused !== null) {
      problems.push({ file, message: refused })
      continue
    }
    const text = readHostFile(file, problems, true)
    take('flag', file, text, 'user')
  }
  if (inputs.home !== undefined) {
    const userFile = join(inputs.home, USER_MCP_FILE)
    take('user', userFile, readHostFile(userFile, problems, false), 'user')
  }
  if (inputs.repo && inputs.readRepoFile) {
    for (const rel of REPO_MCP_FILES) {
      let text: string | null = null
      try {
        text = inputs.readRepoFile(inputs.repo, rel)
      } catch (err) {
        problems.push({ file: rel, message: `not read: ${(err as Error).message}` })
      }
      take('repo', rel, text, 'repo')
    }
  }
  return decide(found, problems, inputs, reserved)
}

/** Give each found entry its state: precedence by order, repository trust, `enabled`, `repos`. */
function decide(
  found: { source: McpEntrySource; file: string; server: ParsedMcpServer }[],
  problems: McpConfigProblem[],
  inputs: McpConfigInputs,
  reserved: ReadonlyMap<string, string>
): McpConfigSet {
  const winner = new Map<string, string>()
  const entries: McpServerEntry[] = []
  const servers: McpServerConfig[] = []
  const untrusted: McpTrustItem[] = []
  // an unreadable trust file trusts nothing (and says so); it never stops the user's own servers
  const trustRead = <T>(fn: () => T, fallback: T): T => {
    try {
      return fn()
    } catch (err) {
      if (!problems.some((p) => p.file === 'trust.json')) problems.push({ file: 'trust.json', message: `nothing from the repository is enabled: ${(err as Error).message}` })
      return fallback
    }
  }
  const known = new Set(inputs.repo && inputs.trust ? trustRead(() => inputs.trust!.list(inputs.repo!).map((t) => t.key), []) : [])
  for (const { source, file, server } of found) {
    const name = server.name
    const base = { name, source, file, server }
    if (source !== 'repo' && server.repos && !(inputs.repo && server.repos.some((r) => resolve(r) === inputs.repo))) {
      entries.push({ ...base, state: 'elsewhere' })
      continue
    }
    const won = winner.get(name) ?? (source === 'repo' ? reserved.get(name) : undefined)
    if (won !== undefined) {
      entries.push({ ...base, state: 'shadowed', shadowedBy: won })
      continue
    }
    winner.set(name, file)
    if (!server.enabled) {
      entries.push({ ...base, state: 'disabled' })
      continue
    }
    if (source === 'repo') {
      const key = `mcp:${name}`
      const { hash, lines } = repoEntryTrust(server, inputs.repo)
      const trusted = inputs.repo !== undefined && inputs.trust !== undefined && trustRead(() => inputs.trust!.isTrusted(inputs.repo!, key, hash), false)
      const state = trusted ? 'trusted' : known.has(key) ? 'changed' : 'new'
      entries.push({ ...base, state: trusted ? 'active' : 'untrusted', trust: { key, hash, state } })
      if (trusted) servers.push(server.config)
      else untrusted.push({ key, kind: 'mcp', title: `MCP server "${name}" (${file})`, detail: [describeWithNotes(server), ...lines].join('\n'), hash, state: state === 'changed' ? 'changed' : 'new' })
      continue
    }
    entries.push({ ...base, state: 'active' })
    servers.push(server.config)
  }
  return { entries, servers, untrusted, problems }
}

/**
 * Exactly what a server will run and where, for the trust card and `cortex mcp enable`: for a
 * local server the command line (JSON-quoted words), its working folder, environment and network;
 * for a remote one the URL and the headers the host sends.
 */
export function describeServer(c: McpServerConfig): string {
  const lines: string[] = []
  if (c.transport === 'stdio') {
    lines.push(`runs in ${c.network ? 'a separate guest WITH network' : "the session's guest (no network)"}: ${[c.command, ...c.args].map(quoteWord).join(' ')}`)
    if (c.cwd) lines.push(`working folder: ${c.cwd}`)
    for (const [k, v] of Object.entries(c.env)) lines.push(`env ${k}=${quoteWord(v)}`)
  } else {
    lines.push(`connects from this computer to ${c.url}`)
    for (const [k, v] of Object.entries(c.headers ?? {})) lines.push(`header ${k}: ${v}`)
    if (c.bearerTokenKey) lines.push(`bearer token: the key "${c.bearerTokenKey}"`)
  }
  if (c.readOnly) lines.push('every tool marked read-only (offered in every mode)')
  if (c.readOnlyTools?.length) lines.push(`read-only tools: ${c.readOnlyTools.join(', ')}`)
  if (c.enabledTools) lines.push(`only tools: ${c.enabledTools.join(', ')}`)
  if (c.disabledTools?.length) lines.push(`never tools: ${c.disabledTools.join(', ')}`)
  if (c.timeoutMs !== undefined) lines.push(`call deadline: ${c.timeoutMs} ms`)
  return lines.join('\n')
}

/**
 * {@link describeServer} followed by the entry's notes (`note: …`: what was ignored or dropped, e.g.
 * a repository entry's `env`): what the trust card and `cortex mcp enable` print.
 */
export function describeWithNotes(server: ParsedMcpServer): string {
  return [describeServer(server.config), ...server.warnings.map((w) => `note: ${w}`)].join('\n')
}

/** A word as the user would type it: bare when safe, else JSON-quoted (so spaces and controls show). */
function quoteWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w)
}

/** The `--mcp-config` files named by CORTEX_MCP_CONFIG (absolute). */
function flagFiles(env: NodeJS.ProcessEnv): string[] {
  const v = env[MCP_CONFIG_ENV]
  return v ? v.split(delimiter).filter((p) => p !== '').map((p) => resolve(p)) : []
}

/** A host file's text; null when absent (a problem when `required`) or unreadable (a problem). */
function readHostFile(file: string, problems: McpConfigProblem[], required: boolean): string | null {
  if (!existsSync(file)) {
    if (required) problems.push({ file, message: 'no such file' })
    return null
  }
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    problems.push({ file, message: `not read: ${(err as Error).message}` })
    return null
  }
}
