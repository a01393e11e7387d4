/**
 * Cortex's OAuthClientProvider for remote MCP servers (the SDK's `auth()` does discovery per RFC 9728
 * and RFC 8414, dynamic client registration, PKCE S256, `iss` validation per RFC 9207 and refresh).
 * Client information, tokens and discovery state persist per server URL in the user's keys store
 * (oauth-store.ts). Two uses: in a session it never opens a browser — a server that needs a login
 * (no client registered, or no usable token and no working refresh) marks the record `needsLogin`
 * and ends the connect with {@link McpNeedsLoginError}; during `cortex mcp login` it hands the
 * authorization URL to `open` and the loopback listener (oauth-loopback.ts) receives the redirect.
 */
import { randomBytes } from 'node:crypto'
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens
} from '@modelcontextprotocol/client'
import type { McpOAuthStore } from './oauth-store'

/** A redirect URI for a session's provider, which never redirects (the SDK needs one to choose the code flow). */
const SESSION_REDIRECT = 'http://127.0.0.1/callback'

/** Connecting to a server needs the user to log in first (`cortex mcp login NAME`). */
export class McpNeedsLoginError extends Error {
  /** @param server the server's name */
  constructor(readonly server: string) {
    super(`the MCP server "${server}" needs you to log in: run \`cortex mcp login ${server}\``)
    this.name = 'McpNeedsLoginError'
  }
}

/** How the provider behaves: a session's (never interactive) or a login's (opens the browser). */
export type McpOAuthMode =
  | { kind: 'session' }
  | {
      kind: 'login'
      /** The loopback redirect URI the listener answers (`http://127.0.0.1:<port>/callback`). */
      redirectUri: string
      /** The `state` sent with the authorization request; the listener checks it. */
      state: string
      /** Shows the user the authorization URL (opens the browser, prints it). */
      open(url: URL): void | Promise<void>
    }

/** The provider for one server; see the module comment. */
export class CortexOAuthProvider implements OAuthClientProvider {
  /** True once this provider found that the user must log in (a session's connect then shows "needs login"). */
  loginNeeded = false
  private verifier: string | undefined
  private discovery: OAuthDiscoveryState | undefined

  /**
   * @param server the server's name (for messages) @param serverUrl its URL (the store's key)
   * @param store where credentials persist @param mode session or login
   */
  constructor(
    private readonly server: string,
    private readonly serverUrl: string,
    private readonly store: McpOAuthStore,
    private readonly mode: McpOAuthMode
  ) {}

  /** The loopback redirect URI (a session's placeholder is never visited). */
  get redirectUrl(): string {
    return this.mode.kind === 'login' ? this.mode.redirectUri : (this.store.get(this.serverUrl).redirectUri ?? SESSION_REDIRECT)
  }

  /** A public native client (RFC 8252): no secret, authorization code + refresh token. */
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Cortex Code',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none'
    }
  }

  /** @returns the state string the listener checks on the redirect (a session's is never used) */
  state(): string {
    return this.mode.kind === 'login' ? this.mode.state : randomBytes(24).toString('base64url')
  }

  /** The stored registration; for a login, only one registered with this redirect URI. @throws McpNeedsLoginError in a session with none */
  clientInformation(): StoredOAuthClientInformation | undefined {
    const rec = this.store.get(this.serverUrl)
    if (this.mode.kind === 'login') return rec.client && rec.redirectUri === this.mode.redirectUri ? (rec.client as StoredOAuthClientInformation) : undefined
    if (!rec.client) this.needsLogin() // registering belongs to the login, not to a session
    return rec.client as StoredOAuthClientInformation
  }

  /** Persist a (dynamic) registration with the redirect URI it was made for. */
  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.store.update(this.serverUrl, (r) => {
      r.client = { ...info }
      r.redirectUri = this.redirectUrl
    })
  }

  /** The stored tokens, if any. */
  tokens(): StoredOAuthTokens | undefined {
    return this.store.get(this.serverUrl).tokens as StoredOAuthTokens | undefined
  }

  /** Persist new tokens (a login or a refresh); the server no longer needs a login. */
  saveTokens(tokens: StoredOAuthTokens): void {
    this.store.update(this.serverUrl, (r) => {
      r.tokens = { ...tokens, savedAt: Date.now() }
      r.needsLogin = false
    })
  }

  /** Login: show the URL to the user. Session: record that a login is needed. @throws McpNeedsLoginError in a session */
  async redirectToAuthorization(url: URL): Promise<void> {
    if (this.mode.kind === 'session') this.needsLogin()
    else await this.mode.open(url)
  }

  /** Keep the PKCE verifier for the code exchange (memory only: it lives for one login). */
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  /** @returns the PKCE verifier @throws Error when no authorization was started */
  codeVerifier(): string {
    if (!this.verifier) throw new Error('no authorization was started (no PKCE verifier)')
    return this.verifier
  }

  /** Persist discovery results (the callback leg checks the issuer against them). */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state
    this.store.update(this.serverUrl, (r) => {
      r.discovery = { ...state }
    })
  }

  /** The discovery state of this login, else the stored one. */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery ?? (this.mode.kind === 'login' ? undefined : (this.store.get(this.serverUrl).discovery as OAuthDiscoveryState | undefined))
  }

  /** Forget what the server said is no longer valid. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined
    if (scope === 'discovery' || scope === 'all') this.discovery = undefined
    if (scope === 'verifier') return
    this.store.update(this.serverUrl, (r) => {
      if (scope === 'all' || scope === 'client') {
        r.client = undefined
        r.redirectUri = undefined
      }
      if (scope === 'all' || scope === 'tokens') r.tokens = undefined
      if (scope === 'all' || scope === 'discovery') r.discovery = undefined
    })
  }

  private needsLogin(): never {
    this.loginNeeded = true
    this.store.update(this.serverUrl, (r) => {
      r.needsLogin = true
    })
    throw new McpNeedsLoginError(this.server)
  }
}
