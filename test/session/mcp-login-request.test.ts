// The MCP panel's login request (session/mcp-requests.ts `loginMcpServer`) against a real local
// authorization server and the MCP server it protects (test/support/oauth-mcp-server.ts): a session's
// real connection that needs a login shows `needs_login`; the request answers the authorization URL,
// opened through the app's openExternal (here the test's browser, following it with fetch) or
// returned as a link; the login finishes in the background and the panel says it connects next turn.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpHttpServerConfig } from '../../src/main/extensions/mcp/config-types'
import { McpConnection } from '../../src/main/extensions/mcp/connection'
import { mcpOAuthStatus } from '../../src/main/extensions/mcp/oauth-store'
import { transportOpener } from '../../src/main/extensions/mcp/transports'
import { mcpRequests } from '../../src/main/session/mcp-requests'
import { NOOP_LOGGER } from '../../src/shared/logger-types'
import { startOAuthMcpServer, type OAuthMcpServer } from '../support/oauth-mcp-server'
import { until } from '../support/mode-switch-session'
import { tempDir } from '../support/temp-dir'

let server: OAuthMcpServer
beforeAll(async () => {
  server = await startOAuthMcpServer()
})
afterAll(async () => {
  await server.close()
})

/** The browser: follow the authorization URL; the server approves and redirects to the service's listener. */
async function browse(url: string): Promise<void> {
  const approved = await fetch(url, { redirect: 'manual' })
  await (await fetch(approved.headers.get('location')!)).text()
}

describe('loginMcpServer (the MCP panel)', () => {
  it('needs_login → Log in opens the browser → logged in, connects at the next turn; without openExternal a link; bad names refused', async () => {
    const home = tempDir('cortex-oauthpanel-')
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: server.mcpUrl }, local: { command: 'node', args: ['x.js'] } } }))
    const config = { name: 'remote', transport: 'http', url: server.mcpUrl } as McpHttpServerConfig
    const conn = new McpConnection(config, transportOpener(config, { home, guestFor: () => Promise.reject(new Error('no guest')) }), NOOP_LOGGER)
    await conn.start()
    const live = (): { name: string; state: McpConnection['state']; error?: string; tools: [] }[] => [{ name: 'remote', state: conn.state, ...(conn.error && { error: conn.error }), tools: [] }]
    const opened: string[] = []
    const api = mcpRequests({ home, live, openExternal: async (u) => void opened.push(u) })

    const before = (await api.mcpServers({ sessionId: 's1' })).servers.find((s) => s.name === 'remote')!
    expect(before.state).toBe('needs_login')
    expect(before.error).toContain('cortex mcp login remote')

    const r = await api.loginMcpServer({ sessionId: 's1', name: 'remote' })
    expect(r.opened).toBe(true)
    expect(opened).toEqual([r.url])
    expect(new URL(r.url).origin).toBe(server.base)
    await browse(r.url)
    await until(() => mcpOAuthStatus(home, server.mcpUrl) === 'logged-in', 'the background login to store tokens', 10_000)
    const after = (await api.mcpServers({ sessionId: 's1' })).servers.find((s) => s.name === 'remote')!
    expect(after.error).toBe('logged in: it connects at your next message')
    await conn.start() // what the provider does at the next turn's start
    expect(conn.state).toBe('ready')
    await conn.close()

    const noBrowser = mcpRequests({ home, live })
    const link = await noBrowser.loginMcpServer({ name: 'remote' })
    expect(link.opened).toBe(false)
    const grants = server.counts.codeGrants
    await browse(link.url)
    await until(() => server.counts.codeGrants === grants + 1, 'the linked login to redeem its code', 10_000)

    await expect(api.loginMcpServer({ name: 'nope' })).rejects.toThrow(/no MCP server named "nope"/)
    await expect(api.loginMcpServer({ name: 'local' })).rejects.toThrow(/is a local server/)
  })
})
