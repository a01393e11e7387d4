/**
 * A real local OAuth 2.1 authorization server and an MCP server it protects, on one 127.0.0.1 port
 * (issuer = the base URL): protected-resource metadata (RFC 9728) at
 * `/.well-known/oauth-protected-resource/mcp`, authorization-server metadata (RFC 8414, with
 * `authorization_response_iss_parameter_supported`), dynamic client registration (RFC 7591), an
 * authorization endpoint that approves at once and redirects with `code`, `state` and `iss`, a token
 * endpoint that checks PKCE S256 and issues refresh tokens, and `POST /mcp`: a minimal Streamable
 * HTTP MCP server (JSON answers; one tool `echo`) behind a bearer check that answers 401 with a
 * `WWW-Authenticate` naming the metadata. Tests change `options` to misbehave (a wrong `iss`).
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

/** How the server behaves; tests change it between steps. */
export interface OAuthServerOptions {
  /** The `iss` the redirect carries: the real issuer, another one, or none. */
  iss: 'right' | 'wrong' | 'absent'
  /** Lifetime of an access token (s). */
  accessTtlS: number
}

/** A running server (see the module comment). */
export interface OAuthMcpServer {
  /** `http://127.0.0.1:<port>`: also the issuer. */
  base: string
  /** The MCP endpoint, `<base>/mcp`. */
  mcpUrl: string
  options: OAuthServerOptions
  /** Requests seen, by kind. */
  counts: { register: number; authorize: number; codeGrants: number; pkceMismatches: number; refreshGrants: number; mcpOk: number; mcp401: number }
  /** Make every access token issued so far expired (the next MCP request gets 401). */
  expireAccessTokens(): void
  close(): Promise<void>
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body))
}
const b64url = (b: Buffer): string => b.toString('base64url')
const token = (): string => b64url(randomBytes(24))

async function body(req: IncomingMessage): Promise<string> {
  let s = ''
  for await (const chunk of req) s += String(chunk)
  return s
}

/** Start the server on 127.0.0.1:0. */
export async function startOAuthMcpServer(options: Partial<OAuthServerOptions> = {}): Promise<OAuthMcpServer> {
  const opts: OAuthServerOptions = { iss: 'right', accessTtlS: 3600, ...options }
  const counts = { register: 0, authorize: 0, codeGrants: 0, pkceMismatches: 0, refreshGrants: 0, mcpOk: 0, mcp401: 0 }
  const clients = new Map<string, string[]>() // client_id → redirect_uris
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string }>()
  const access = new Map<string, number>() // token → expiry (ms)
  const refresh = new Set<string>()
  let base = ''

  const issue = (res: ServerResponse): void => {
    const at = token()
    const rt = token()
    access.set(at, Date.now() + opts.accessTtlS * 1000)
    refresh.add(rt)
    json(res, 200, { access_token: at, token_type: 'Bearer', expires_in: opts.accessTtlS, refresh_token: rt, scope: 'mcp' })
  }

  const handlers: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void> = {
    'GET /.well-known/oauth-protected-resource/mcp': (_q, res) => json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: ['mcp'] }),
    'GET /.well-known/oauth-authorization-server': (_q, res) =>
      json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['mcp'],
        authorization_response_iss_parameter_supported: true
      }),
    'POST /register': async (req, res) => {
      counts.register += 1
      const meta = JSON.parse(await body(req)) as { redirect_uris?: string[] }
      const id = `client-${token()}`
      clients.set(id, meta.redirect_uris ?? [])
      json(res, 201, { ...meta, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: 'none' })
    },
    'GET /authorize': (_q, res, url) => {
      counts.authorize += 1
      const p = url.searchParams
      const redirectUri = p.get('redirect_uri') ?? ''
      const clientId = p.get('client_id') ?? ''
      if (!clients.get(clientId)?.includes(redirectUri)) return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' })
      const back = new URL(redirectUri)
      const state = p.get('state')
      if (state) back.searchParams.set('state', state)
      if (opts.iss !== 'absent') back.searchParams.set('iss', opts.iss === 'right' ? base : 'http://127.0.0.1:1/another-issuer')
      const challenge = p.get('code_challenge')
      if (!challenge || p.get('code_challenge_method') !== 'S256') {
        back.searchParams.set('error', 'invalid_request')
        back.searchParams.set('error_description', 'PKCE with S256 is required')
      } else {
        const code = token()
        codes.set(code, { clientId, redirectUri, challenge })
        back.searchParams.set('code', code)
      }
      res.writeHead(302, { location: back.href }).end()
    },
    'POST /token': async (req, res) => {
      const p = new URLSearchParams(await body(req))
      if (p.get('grant_type') === 'refresh_token') {
        counts.refreshGrants += 1
        const rt = p.get('refresh_token') ?? ''
        if (!refresh.delete(rt)) return json(res, 400, { error: 'invalid_grant', error_description: 'unknown refresh token' })
        return issue(res)
      }
      counts.codeGrants += 1
      const grant = codes.get(p.get('code') ?? '')
      codes.delete(p.get('code') ?? '')
      if (!grant || grant.clientId !== p.get('client_id') || grant.redirectUri !== p.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant', error_description: 'unknown code' })
      const verifier = p.get('code_verifier')
      if (!verifier || b64url(createHash('sha256').update(verifier).digest()) !== grant.challenge) {
        counts.pkceMismatches += 1
        return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verifier does not match' })
      }
      issue(res)
    },
    'POST /mcp': async (req, res) => {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
      const exp = bearer ? access.get(bearer) : undefined
      if (!exp || exp <= Date.now()) {
        counts.mcp401 += 1
        await body(req)
        return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer ${bearer ? 'error="invalid_token", ' : ''}resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` })
      }
      counts.mcpOk += 1
      const msg = JSON.parse(await body(req)) as { id?: number | string; method: string; params?: { protocolVersion?: string; arguments?: { text?: string } } }
      if (msg.id === undefined) return void res.writeHead(202).end()
      const reply = (r: Record<string, unknown>): void => json(res, 200, { jsonrpc: '2.0', id: msg.id, ...r })
      switch (msg.method) {
        case 'initialize':
          return reply({ result: { protocolVersion: msg.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'oauth-mini', version: '1.0.0' } } })
        case 'tools/list':
          return reply({ result: { tools: [{ name: 'echo', description: 'Echo the text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }] } })
        case 'tools/call':
          return reply({ result: { content: [{ type: 'text', text: `echo: ${msg.params?.arguments?.text ?? ''}` }] } })
        case 'ping':
          return reply({ result: {} })
        default:
          return reply({ error: { code: -32601, message: 'Method not found' } })
      }
    }
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base)
    const h = handlers[`${req.method} ${url.pathname}`]
    if (!h) return void res.writeHead(req.url?.startsWith('/mcp') ? 405 : 404).end()
    Promise.resolve(h(req, res, url)).catch((err: unknown) => json(res, 500, { error: 'server_error', error_description: String(err) }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  return {
    base,
    mcpUrl: `${base}/mcp`,
    options: opts,
    counts,
    expireAccessTokens() {
      for (const k of access.keys()) access.set(k, 0)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
