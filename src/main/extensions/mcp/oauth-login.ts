/**
 * `cortex mcp login NAME` / `logout NAME` (and the app's login button): an OAuth 2.1 authorization
 * code flow with PKCE against a remote MCP server's authorization server, driven by the SDK's `auth()`
 * (discovery, registration, PKCE S256, the RFC 9207 `iss` check before the code is redeemed) with
 * {@link CortexOAuthProvider}. The browser is handed the authorization URL by the caller's `open`;
 * the redirect reaches a loopback listener on 127.0.0.1; the wait has a deadline and ends on Stop.
 */
import { randomBytes } from 'node:crypto'
import { CortexError } from '../../../shared/errors'
import { mcpServersFor } from './config'
import type { McpHttpServerConfig } from './config-types'
import { OAUTH_REDIRECT_DEADLINE_MS, startLoopback } from './oauth-loopback'
import { CortexOAuthProvider } from './oauth-provider'
import { McpOAuthStore } from './oauth-store'

export { mcpOAuthStatus } from './oauth-store'

/** What a login needs. */
export interface McpLoginOptions {
  /** The server's name (messages only). */
  name: string
  /** The server's Streamable HTTP URL (the protected resource). */
  url: string
  /** CORTEX_HOME: the credentials file lives there. */
  home: string
  /** Hands the authorization URL to the user (opens the browser, prints it). */
  open(url: URL): void | Promise<void>
  /** Stop: ends the wait for the redirect at once. */
  signal: AbortSignal
  /** How long to wait for the browser's redirect (ms; default {@link OAUTH_REDIRECT_DEADLINE_MS}). */
  deadlineMs?: number
  /** Called once the loopback listener is up, with its redirect URI (tests, progress lines). */
  onListening?(redirectUri: string): void
}

/**
 * Log in to `opts.url`: a fresh authorization (stored tokens are replaced, not refreshed).
 * @returns the granted scope, if the server named one
 * @throws CortexError('invalid_input') when the authorization server refuses, the `iss` of the
 *   redirect is not the server's issuer, the code exchange fails (a PKCE mismatch), or no redirect
 *   came before the deadline; an AbortError on Stop. Nothing is stored by a failed login but the
 *   client registration and discovery results.
 */
export async function mcpOAuthLogin(opts: McpLoginOptions): Promise<{ scope?: string }> {
  const { auth, extractWWWAuthenticateParams } = await import('@modelcontextprotocol/client')
  const store = new McpOAuthStore(opts.home)
  const previous = store.get(opts.url).redirectUri
  const state = randomBytes(24).toString('base64url')
  const listener = await startLoopback(state, previous ? Number(new URL(previous).port) || undefined : undefined)
  opts.onListening?.(listener.redirectUri)
  try {
    const provider = new CortexOAuthProvider(opts.name, opts.url, store, { kind: 'login', redirectUri: listener.redirectUri, state, open: opts.open })
    // the server's own 401 challenge names its metadata's place and the scope it wants (RFC 9728 §5.1)
    const asked = await challenge(opts.url, opts.signal).then((r) => (r ? extractWWWAuthenticateParams(r) : {}))
    const hints = { ...(asked.resourceMetadataUrl && { resourceMetadataUrl: asked.resourceMetadataUrl }), ...(asked.scope && { scope: asked.scope }) }
    const first = await race(auth(provider, { serverUrl: opts.url, forceReauthorization: true, ...hints }), opts.signal, opts.name)
    if (first !== 'AUTHORIZED') {
      const answer = await listener.wait(opts.signal, opts.deadlineMs ?? OAUTH_REDIRECT_DEADLINE_MS)
      await race(auth(provider, { serverUrl: opts.url, authorizationCode: answer.code, iss: answer.iss, ...hints }), opts.signal, opts.name)
    }
    const tokens = provider.tokens()
    if (!tokens?.access_token) throw new CortexError('invalid_input', `login to "${opts.name}" ended without an access token`)
    return tokens.scope ? { scope: tokens.scope } : {}
  } finally {
    await listener.close()
  }
}

/** Forget the stored credentials of `url`. @returns whether any were stored */
export function mcpOAuthLogout(home: string, url: string): boolean {
  return new McpOAuthStore(home).remove(url)
}

/**
 * The remote server `name` as `repo` sees it, for login/logout.
 * @throws CortexError('invalid_input') when there is no such server, it is a local (stdio) one, or
 *   it is a repository's server not enabled for `repo`
 */
export function remoteServerFor(home: string, repo: string | undefined, name: string): McpHttpServerConfig {
  const set = mcpServersFor(home, repo)
  const entry = set.entries.find((e) => e.name === name && e.state !== 'shadowed' && e.state !== 'elsewhere')
  if (!entry) throw new CortexError('invalid_input', `no MCP server named "${name}" (see cortex mcp list)`)
  if (entry.state === 'untrusted') throw new CortexError('invalid_input', `"${name}" from the repository's ${entry.file} is not enabled: \`cortex mcp enable ${name}\` first`)
  const config = entry.server.config
  if (config.transport !== 'http') throw new CortexError('invalid_input', `"${name}" is a local server (it runs a command); only remote (URL) servers log in`)
  return config
}

/** The server's answer to an unauthenticated `ping` when it is a 401 (its WWW-Authenticate), else undefined; never rejects. */
async function challenge(url: string, signal: AbortSignal): Promise<Response | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)])
    })
    await res.body?.cancel().catch(() => undefined)
    return res.status === 401 ? res : undefined
  } catch {
    return undefined // unreachable now: auth() below says why
  }
}

async function race<T>(p: Promise<T>, signal: AbortSignal, name: string): Promise<T> {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new DOMException('stopped', 'AbortError')
  return await new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new DOMException('stopped', 'AbortError'))
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(resolve, (err: unknown) => reject(loginError(err, name))).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** The SDK's OAuth failures as one line for the user. */
function loginError(err: unknown, name: string): Error {
  if (err instanceof CortexError) return err
  const e = err instanceof Error ? err : new Error(String(err))
  const kind = e.name === 'IssuerMismatchError' ? 'the redirect came from another issuer than the server\'s (iss mismatch; refused)' : e.message
  return new CortexError('invalid_input', `login to "${name}" failed: ${kind}`, { cause: e })
}
