/**
 * Where OAuth credentials of remote MCP servers are kept: `<CORTEX_HOME>/mcp-oauth.json`, mode 0600
 * in the 0700 data folder, written atomically (temp + rename) like the keys file `host-keys.json`
 * (settings-store.ts `fileSecrets`). One record per server URL: the registered client, the tokens,
 * the discovery state, and whether a session found the server asking for a login. Never written
 * into a repository, never logged (callers log only the server's name).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The file name of the MCP OAuth credentials in the data folder. */
export const MCP_OAUTH_FILE = 'mcp-oauth.json'

/**
 * One server's stored OAuth state. `client` is the SDK's StoredOAuthClientInformation, `tokens` its
 * StoredOAuthTokens (plus `savedAt`, ms since the epoch), `discovery` its OAuthDiscoveryState; kept
 * as plain JSON so this module does not load the SDK. `redirectUri` is the loopback URI the client
 * was registered with; `needsLogin` is set when a session was refused for want of a login.
 */
export interface McpOAuthRecord {
  client?: Record<string, unknown>
  redirectUri?: string
  tokens?: Record<string, unknown> & { savedAt?: number }
  discovery?: Record<string, unknown>
  needsLogin?: boolean
}

/** The key of a server's record: its URL without fragment (the resource the tokens are for). */
export function oauthKey(serverUrl: string | URL): string {
  const u = new URL(String(serverUrl))
  u.hash = ''
  return u.href
}

/** Read/modify/write access to `<home>/mcp-oauth.json`; see the module comment. */
export class McpOAuthStore {
  /** Absolute path of the credentials file. */
  readonly file: string

  /** @param home CORTEX_HOME (created 0700 on the first write) */
  constructor(private readonly home: string) {
    this.file = join(home, MCP_OAUTH_FILE)
  }

  private readAll(): Record<string, McpOAuthRecord> {
    if (!existsSync(this.file)) return {}
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'))
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, McpOAuthRecord>) : {}
    } catch {
      return {} // a damaged file holds no credentials: the user logs in again
    }
  }

  /** The record of `serverUrl` (an empty one when none is stored). */
  get(serverUrl: string | URL): McpOAuthRecord {
    return { ...this.readAll()[oauthKey(serverUrl)] }
  }

  /** Change the record of `serverUrl` with `edit` (which may mutate it); an empty record is removed. @throws the fs error when the folder cannot be written */
  update(serverUrl: string | URL, edit: (r: McpOAuthRecord) => void): void {
    const all = this.readAll()
    const key = oauthKey(serverUrl)
    const rec: McpOAuthRecord = { ...all[key] }
    edit(rec)
    for (const k of Object.keys(rec) as (keyof McpOAuthRecord)[]) if (rec[k] === undefined || rec[k] === false) delete rec[k]
    if (Object.keys(rec).length === 0) delete all[key]
    else all[key] = rec
    mkdirSync(this.home, { recursive: true, mode: 0o700 })
    const tmp = `${this.file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(all) + '\n', { mode: 0o600 })
    chmodSync(tmp, 0o600)
    renameSync(tmp, this.file)
  }

  /** Forget everything stored for `serverUrl` (logout). @returns whether anything was stored */
  remove(serverUrl: string | URL): boolean {
    const had = Object.keys(this.get(serverUrl)).length > 0
    if (had) this.update(serverUrl, (r) => {
      for (const k of Object.keys(r)) delete r[k as keyof McpOAuthRecord]
    })
    return had
  }
}

/** Whether `url` has stored tokens (`logged-in`), or a session found it asking for a login (`needs-login`); undefined: neither. */
export function mcpOAuthStatus(home: string, url: string): 'logged-in' | 'needs-login' | undefined {
  const rec = new McpOAuthStore(home).get(url)
  if (rec.needsLogin) return 'needs-login'
  return rec.tokens ? 'logged-in' : undefined
}
