/**
 * Opening a transport to one MCP server: a stdio server is started INSIDE a guest (the session's
 * own, or for a server the user allowed network a separate hardened guest with network) through
 * Guest.openProcess, with only the user's configured environment; a Streamable HTTP server is
 * reached from the host with the configured headers and a bearer token from the keys store, or —
 * when neither names an Authorization — with OAuth tokens from `cortex mcp login` (oauth-provider.ts),
 * refreshed by the SDK when the server refuses an expired one.
 * Streamable HTTP first; a server that refuses it with a 4xx (not 401/403) is tried over the legacy HTTP+SSE transport.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { CortexError } from '../../../shared/errors'
import type { Guest } from '../../guest/guest'
import type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from './config-types'
import type { OpenedTransport, TransportOpener } from './connection'
import { GuestProcessTransport } from './guest-transport'
import { CortexOAuthProvider } from './oauth-provider'
import { McpOAuthStore } from './oauth-store'
import { guestArgv } from './package-cache'

/** What opening a transport needs from the session. */
export interface TransportDeps {
  /** CORTEX_HOME (the package cache and the keys file live there). */
  home: string
  /**
   * The guest a stdio server runs in: the session's own for `network` false, else a separate
   * guest with network for this server alone (closed with the connection). Aborting cancels a start.
   */
  guestFor(config: McpStdioServerConfig, signal: AbortSignal): Promise<Guest>
  /** Environment of the host, for a bearer token named by an environment variable (default process.env). */
  env?: NodeJS.ProcessEnv
}

/** The opener of `config`'s transport (see the module comment). */
export function transportOpener(config: McpServerConfig, deps: TransportDeps): TransportOpener {
  return config.transport === 'stdio' ? (signal) => openStdio(config, deps, signal) : async () => openHttp(config, deps)
}

async function openStdio(config: McpStdioServerConfig, deps: TransportDeps, signal: AbortSignal): Promise<OpenedTransport> {
  const argv = guestArgv(config, deps.home)
  const guest = await deps.guestFor(config, signal)
  if (!guest.openProcess) throw new CortexError('guest_failed', 'this guest cannot run an MCP server (no long-lived processes)')
  const cwd = config.cwd === undefined ? undefined : config.cwd.startsWith('/') ? config.cwd : `${guest.workspace}/${config.cwd}`
  const proc = await guest.openProcess({ argv, env: config.env, ...(cwd ? { cwd } : {}) })
  if (signal.aborted) {
    await proc.close()
    throw signal.reason instanceof Error ? signal.reason : new DOMException('stopped', 'AbortError')
  }
  const transport = new GuestProcessTransport(proc)
  return {
    transport,
    describeEnd() {
      const code = transport.exitCode
      const tail = transport.stderrTail().split('\n').slice(-4).join(' | ').slice(-600)
      const parts = [code === undefined ? '' : `exited with code ${code ?? 'unknown'}`, tail ? `stderr: ${tail}` : '']
      return parts.filter(Boolean).join('; ')
    },
    // the guest was closed or died under the server (a sandbox switch, a replaced guest), or the exec
    // ended without an exit code (its container is gone): the server did not stop by itself
    guestReplaced: () => guest.closed === true || guest.dead === true || transport.exitCode === null
  }
}

function openHttp(config: McpHttpServerConfig, deps: TransportDeps): OpenedTransport {
  let url: URL
  try {
    url = new URL(config.url)
  } catch {
    throw new CortexError('invalid_input', `MCP server "${config.name}": "${config.url}" is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CortexError('invalid_input', `MCP server "${config.name}": ${config.url} is not an http: or https: URL`)
  const headers: Record<string, string> = { ...config.headers }
  if (config.bearerTokenKey) {
    const token = bearerToken(deps.home, config.bearerTokenKey, deps.env ?? process.env)
    if (!token) {
      throw new CortexError('invalid_input', `MCP server "${config.name}": no key "${config.bearerTokenKey}" in ${join(deps.home, 'host-keys.json')} nor in the environment`)
    }
    headers.Authorization = `Bearer ${token}`
  }
  // a server of the 2024-11-05 revision: GET the URL for the SSE stream, POST to the endpoint it names (same headers and credentials)
  const legacy = (authProvider?: CortexOAuthProvider) => (): OpenedTransport => ({ transport: new SSEClientTransport(url, { requestInit: { headers }, ...(authProvider ? { authProvider } : {}) }), describeEnd: () => 'legacy HTTP+SSE transport' })
  if (Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
    return { transport: new StreamableHTTPClientTransport(url, { requestInit: { headers } }), describeEnd: () => '', fallback: legacy() }
  }
  // no configured credentials: OAuth, used only when the server answers 401 (a session never opens a browser)
  const authProvider = new CortexOAuthProvider(config.name, config.url, new McpOAuthStore(deps.home), { kind: 'session' })
  return {
    transport: new StreamableHTTPClientTransport(url, { requestInit: { headers }, authProvider }),
    describeEnd: () => '',
    needsLogin: () => authProvider.loginNeeded,
    fallback: legacy(authProvider)
  }
}

/**
 * The bearer token named `key`: from the keys file `<home>/host-keys.json` (where `cortex serve`
 * keeps API keys, 0600), else the environment variable of that name; undefined when neither has it.
 */
export function bearerToken(home: string, key: string, env: NodeJS.ProcessEnv): string | undefined {
  const file = join(home, 'host-keys.json')
  if (existsSync(file)) {
    try {
      const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
      const v = all[key]
      if (typeof v === 'string' && v.trim()) return v.trim()
    } catch {
      // a damaged keys file holds no key: the environment is asked next
    }
  }
  const fromEnv = env[key]
  return fromEnv?.trim() ? fromEnv.trim() : undefined
}
