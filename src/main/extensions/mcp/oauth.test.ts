// OAuth 2.1 + PKCE for remote MCP servers, end to end against a real local authorization server and
// the MCP server it protects (test/support/oauth-mcp-server.ts, 127.0.0.1 only): the test plays the
// browser with fetch (it follows the authorization URL; the server approves at once; the redirect
// reaches the login's loopback listener). The session side is the real McpConnection over the real
// Streamable HTTP transport with the product's provider.
import { statSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NOOP_LOGGER } from '../../../shared/logger-types'
import { startOAuthMcpServer, type OAuthMcpServer } from '../../../../test/support/oauth-mcp-server'
import { tempDir } from '../../../../test/support/temp-dir'
import type { McpHttpServerConfig } from './config-types'
import { McpConnection } from './connection'
import { mcpOAuthLogin, mcpOAuthLogout, mcpOAuthStatus } from './oauth-login'
import { McpOAuthStore } from './oauth-store'
import { transportOpener } from './transports'

let server: OAuthMcpServer
beforeAll(async () => {
  server = await startOAuthMcpServer()
})
afterAll(async () => {
  await server.close()
})

/** A browser that follows the authorization URL (after `tamper`) and then the redirect to our listener. */
function browser(tamper: (u: URL) => void = () => undefined): { open(url: URL): void; visited: Promise<number> } {
  let done!: (status: number) => void
  const visited = new Promise<number>((r) => (done = r))
  return {
    visited,
    open(url) {
      const u = new URL(url)
      tamper(u)
      void (async () => {
        const first = await fetch(u, { redirect: 'manual' })
        const location = first.headers.get('location')
        if (!location) return done(first.status)
        const back = await fetch(location)
        await back.text()
        done(back.status)
      })()
    }
  }
}

const config = (url: string): McpHttpServerConfig => ({ name: 'remote', transport: 'http', url })

async function connect(home: string): Promise<McpConnection> {
  const c = config(server.mcpUrl)
  const conn = new McpConnection(c, transportOpener(c, { home, guestFor: () => Promise.reject(new Error('no guest')) }), NOOP_LOGGER)
  await conn.start()
  return conn
}

const login = (home: string, open: (u: URL) => void, signal = new AbortController().signal, deadlineMs?: number): ReturnType<typeof mcpOAuthLogin> =>
  mcpOAuthLogin({ name: 'remote', url: server.mcpUrl, home, open, signal, ...(deadlineMs !== undefined && { deadlineMs }) })

describe('MCP OAuth against a local authorization server', () => {
  it('a session without a login shows "needs login" (not a failure); login stores tokens 0600; the tool call succeeds; logout forgets', async () => {
    const home = tempDir('cortex-oauth-')
    const before = await connect(home)
    expect(before.state).toBe('needs-login')
    expect(before.error).toContain('cortex mcp login remote')
    expect(server.counts.register).toBe(0) // a session never registers a client nor opens a browser
    expect(mcpOAuthStatus(home, server.mcpUrl)).toBe('needs-login')
    await before.close()

    const b = browser()
    const r = await login(home, b.open)
    expect(await b.visited).toBe(200)
    expect(r.scope).toBe('mcp')
    const store = new McpOAuthStore(home)
    expect(store.get(server.mcpUrl).tokens?.access_token).toEqual(expect.any(String))
    expect(store.get(server.mcpUrl).tokens?.refresh_token).toEqual(expect.any(String))
    expect(statSync(store.file).mode & 0o777).toBe(0o600)
    expect(mcpOAuthStatus(home, server.mcpUrl)).toBe('logged-in')

    const conn = await connect(home)
    try {
      expect(conn.state).toBe('ready')
      expect(conn.tools.map((t) => t.name)).toEqual(['echo'])
      const out = await conn.call('echo', { text: 'hi' }, new AbortController().signal)
      expect(out.content).toEqual([{ type: 'text', text: 'echo: hi' }])
    } finally {
      await conn.close()
    }
    expect(mcpOAuthLogout(home, server.mcpUrl)).toBe(true)
    expect(mcpOAuthStatus(home, server.mcpUrl)).toBeUndefined()
  })

  it('a connection that needed a login connects on its next start once the user has logged in', async () => {
    const home = tempDir('cortex-oauth-')
    const c = config(server.mcpUrl)
    const conn = new McpConnection(c, transportOpener(c, { home, guestFor: () => Promise.reject(new Error('no guest')) }), NOOP_LOGGER)
    try {
      await conn.start()
      expect(conn.state).toBe('needs-login')
      await login(home, browser().open)
      expect(mcpOAuthStatus(home, server.mcpUrl)).toBe('logged-in') // what the provider checks at a turn's start
      await conn.start()
      expect(conn.state).toBe('ready')
      expect((await conn.call('echo', { text: 'later' }, new AbortController().signal)).content).toEqual([{ type: 'text', text: 'echo: later' }])
    } finally {
      await conn.close()
    }
  })

  it('an expired access token is refreshed with the refresh token and the call goes through', async () => {
    const home = tempDir('cortex-oauth-')
    await login(home, browser().open)
    const store = new McpOAuthStore(home)
    const first = store.get(server.mcpUrl).tokens!
    server.expireAccessTokens()
    const refreshes = server.counts.refreshGrants
    const conn = await connect(home)
    try {
      expect(conn.state).toBe('ready')
      expect(server.counts.refreshGrants).toBe(refreshes + 1)
      const now = store.get(server.mcpUrl).tokens!
      expect(now.access_token).not.toBe(first.access_token)
      expect(now.refresh_token).not.toBe(first.refresh_token)
      server.expireAccessTokens() // mid-session too: the call's 401 refreshes again
      const out = await conn.call('echo', { text: 'again' }, new AbortController().signal)
      expect(out.content).toEqual([{ type: 'text', text: 'echo: again' }])
      expect(server.counts.refreshGrants).toBe(refreshes + 2)
    } finally {
      await conn.close()
    }
  })

  it('a redirect whose iss is not the server\'s issuer is refused and no token is stored', async () => {
    const home = tempDir('cortex-oauth-')
    server.options.iss = 'wrong'
    const grants = server.counts.codeGrants
    try {
      await expect(login(home, browser().open)).rejects.toThrow(/iss mismatch; refused/)
    } finally {
      server.options.iss = 'right'
    }
    expect(server.counts.codeGrants).toBe(grants) // the code was never redeemed
    expect(new McpOAuthStore(home).get(server.mcpUrl).tokens).toBeUndefined()
  })

  it('a missing PKCE challenge is refused by the server and a mismatched verifier fails the exchange', async () => {
    const home = tempDir('cortex-oauth-')
    const strip = browser((u) => {
      u.searchParams.delete('code_challenge')
      u.searchParams.delete('code_challenge_method')
    })
    await expect(login(home, strip.open)).rejects.toThrow(/refused the login \(invalid_request: PKCE with S256 is required\)/)
    const other = browser((u) => u.searchParams.set('code_challenge', 'A'.repeat(43)))
    const mismatches = server.counts.pkceMismatches
    // the SDK retries once after invalid_grant (the code is spent by then): the login fails either way
    await expect(login(home, other.open)).rejects.toThrow(/login to "remote" failed: (PKCE verifier does not match|unknown code)/)
    expect(server.counts.pkceMismatches).toBe(mismatches + 1)
    expect(new McpOAuthStore(home).get(server.mcpUrl).tokens).toBeUndefined()
  })

  it('Stop while waiting for the redirect ends the login within 2 s and frees the port; the deadline ends it too', async () => {
    const home = tempDir('cortex-oauth-')
    const stop = new AbortController()
    let redirect = ''
    let shown!: () => void
    const opened = new Promise<void>((r) => (shown = r))
    const p = mcpOAuthLogin({ name: 'remote', url: server.mcpUrl, home, signal: stop.signal, open: () => shown(), onListening: (u) => (redirect = u) })
    await opened
    const t0 = Date.now()
    stop.abort(new DOMException('stopped', 'AbortError'))
    await expect(p).rejects.toThrow(/stopped/)
    expect(Date.now() - t0).toBeLessThan(2000)
    await expect(fetch(redirect)).rejects.toThrow() // nothing listens any more

    await expect(login(home, () => undefined, new AbortController().signal, 300)).rejects.toThrow(/no answer from the browser within 0 s/)
  })
})
