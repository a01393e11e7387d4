/**
 * The MCP configuration as the adapters use it (`cortex mcp …`, the app's panel): the servers a
 * repository sees with the real trust store and repository reader, and the user's decisions —
 * enable or disable a server for a repository (a repository's: trust or revoke its exact entry; the
 * user's own: its `"enabled"`), add, remove, import. Re-exported by main/session's index.
 */
import { CortexError } from '../../../shared/errors'
import { readRepoFile } from '../repo-file'
import { TrustStore } from '../trust-store'
import type { ExtensionContext } from '../types'
import { setUserServerEnabled } from './config-file'
import { describeServer, describeWithNotes, loadMcpConfig, type McpConfigSet, type McpServerEntry } from './config-load'

export { addUserServer, removeUserServer } from './config-file'
export { importMcpServers, IMPORT_FORMATS, defaultImportFiles, type ImportReport, type ImportFormat } from './config-import'
export { describeServer, describeWithNotes, MCP_CONFIG_ENV, type McpConfigSet, type McpServerEntry } from './config-load'
export { flagFileRefusal } from './flag-file-policy'
export type { RawMcpEntry } from './config-parse'

/**
 * Every MCP server `repo` (its real path; absent: user-level only) sees, with each one's state and
 * trust, read with CORTEX_HOME `home`'s trust store. `env` is where `${VAR}` and CORTEX_MCP_CONFIG come from.
 */
export function mcpServersFor(home: string, repo?: string, env: NodeJS.ProcessEnv = process.env): McpConfigSet {
  return loadMcpConfig({ home, ...(repo !== undefined && { repo }), trust: new TrustStore(home), readRepoFile: readRepoText, env })
}

/** A repository file's text, read without following links (see repo-file.ts); null when absent. */
export function readRepoText(repo: string, rel: string): string | null {
  return readRepoFile(repo, rel)?.toString('utf8') ?? null
}

/**
 * The MCP servers of a session (for the MCP provider): `servers` may start now, `untrusted` are
 * its `trustItems()`, `problems` are worth a log line or a notice. Call again at each turn's start
 * and after a trust decision: an edited file or a new decision changes the answer.
 */
export function sessionMcpConfig(ctx: Pick<ExtensionContext, 'home' | 'repo' | 'trust'>, env: NodeJS.ProcessEnv = process.env): McpConfigSet {
  return loadMcpConfig({ ...(ctx.home !== undefined && { home: ctx.home }), repo: ctx.repo, ...(ctx.trust && { trust: ctx.trust }), readRepoFile: readRepoText, env })
}

/**
 * The entry of `name` that counts for `repo` (the winner of its name), with `detail`: what it runs
 * and its notes, as `cortex mcp enable` prints it before asking.
 * @throws CortexError('invalid_input') when there is no such server or it cannot be parsed
 */
export function findMcpServer(home: string, repo: string | undefined, name: string, env: NodeJS.ProcessEnv = process.env): { entry: McpServerEntry; detail: string } {
  const entry = winning(mcpServersFor(home, repo, env), name, repo)
  return { entry, detail: describeWithNotes(entry.server) }
}

/** The entry of `name` that counts (the winner of its name), or a clear error naming where to look. */
function winning(set: McpConfigSet, name: string, repo: string | undefined): McpServerEntry {
  const e = set.entries.find((x) => x.name === name && x.state !== 'shadowed' && x.state !== 'elsewhere')
  if (e) return e
  const why = set.problems.find((p) => p.name === name)
  if (why) throw new CortexError('invalid_input', `server "${name}" cannot be used: ${why.message} (${why.file})`)
  throw new CortexError('invalid_input', `no MCP server named "${name}" for ${repo ?? 'this user'} (see cortex mcp list)`)
}

/** What {@link enableMcpServer} / {@link disableMcpServer} did. */
export interface McpSwitchResult {
  /** `changed`: the server's state changed; `unchanged`: it already was so. */
  outcome: 'changed' | 'unchanged'
  /** The entry acted on (before the change). */
  entry: McpServerEntry
  /** What the server runs ({@link describeServer}), for the user to read. */
  detail: string
}

/**
 * Enable `name` for `repo`: a repository server is trusted in its exact current form (a later change
 * disables it again); a server of the user's config disabled by `"enabled": false` is switched on.
 * `expectedHash` (the full trust hash, or a prefix, the user was shown) binds a repository server's
 * enable to that content: the entry is re-read here and refused when its hash differs.
 * @throws CortexError('invalid_input') when there is no such server, it cannot be parsed, it comes
 *   from `--mcp-config` (edit that file), or its entry's hash is not `expectedHash`
 */
export function enableMcpServer(home: string, repo: string | undefined, name: string, env: NodeJS.ProcessEnv = process.env, expectedHash?: string): McpSwitchResult {
  const entry = winning(mcpServersFor(home, repo, env), name, repo)
  const detail = describeWithNotes(entry.server)
  if (entry.source === 'repo') {
    if (expectedHash === '') throw new CortexError('invalid_input', `enabling "${name}" from the repository's ${entry.file} needs the hash of the entry you reviewed`)
    if (expectedHash !== undefined && !entry.trust!.hash.startsWith(expectedHash.toLowerCase())) {
      throw new CortexError('invalid_input', `not enabled: "${name}" (${entry.file}) changed since it was shown: its hash is now ${entry.trust!.hash.slice(0, 12)}, not ${expectedHash.slice(0, 12)}. It would now run:\n  ${detail.split('\n').join('\n  ')}`)
    }
    if (entry.state === 'active') return { outcome: 'unchanged', entry, detail }
    if (!entry.server.enabled) throw new CortexError('invalid_input', `server "${name}" is switched off in the repository's ${entry.file} ("enabled": false)`)
    new TrustStore(home).trust(repo!, [{ key: entry.trust!.key, hash: entry.trust!.hash }])
    return { outcome: 'changed', entry, detail }
  }
  if (entry.source === 'flag') throw new CortexError('invalid_input', `server "${name}" comes from --mcp-config ${entry.file}: edit that file`)
  return { outcome: setUserServerEnabled(home, name, true) ? 'changed' : 'unchanged', entry, detail }
}

/**
 * Disable `name` for `repo`: a repository server's trust is revoked (it is off until enabled
 * again); a server of the user's config gets `"enabled": false` (everywhere).
 * @throws CortexError('invalid_input') as {@link enableMcpServer}
 */
export function disableMcpServer(home: string, repo: string | undefined, name: string, env: NodeJS.ProcessEnv = process.env): McpSwitchResult {
  const entry = winning(mcpServersFor(home, repo, env), name, repo)
  const detail = describeServer(entry.server.config)
  if (entry.source === 'repo') {
    const store = new TrustStore(home)
    const had = store.list(repo!).some((t) => t.key === entry.trust!.key)
    if (had) store.revoke(repo!, entry.trust!.key)
    return { outcome: had ? 'changed' : 'unchanged', entry, detail }
  }
  if (entry.source === 'flag') throw new CortexError('invalid_input', `server "${name}" comes from --mcp-config ${entry.file}: edit that file`)
  return { outcome: setUserServerEnabled(home, name, false) ? 'changed' : 'unchanged', entry, detail }
}
