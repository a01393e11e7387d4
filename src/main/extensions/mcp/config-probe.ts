/**
 * `cortex mcp test NAME`: connect to one configured server the way a session would (a local server
 * in a fresh guest for the repository, with the same hardening; a remote one from the host), list
 * its tools and estimate what their schemas cost in the context, then end everything. A repository
 * server must be enabled first: testing it would run it.
 */
import { randomUUID } from 'node:crypto'
import { CortexError } from '../../../shared/errors'
import { NOOP_LOGGER, type Logger } from '../../../shared/logger-types'
import type { Guest, GuestProvider } from '../../guest/guest'
import { estimateTokens } from '../../harness/compaction/accounting'
import { mcpServersFor } from './config'
import type { McpServerEntry } from './config-load'
import { toolEnabled } from './tool-adapter-rules'

/** One tool as the test reports it. */
export interface ProbedTool {
  /** The server's own name for it. */
  name: string
  description: string
  /** Estimated tokens of its name, description and input schema as sent to the model. */
  tokens: number
  /** False when the user's `enabledTools`/`disabledTools` hide it from the model. */
  exposed: boolean
}

/** What {@link probeMcpServer} found. */
export interface ProbeResult {
  entry: McpServerEntry
  /** The negotiated protocol revision. */
  protocolVersion?: string
  tools: ProbedTool[]
  /** Sum of `tokens` over the exposed tools. */
  exposedTokens: number
}

/**
 * Connect to `name` as `repo` sees it, list its tools, end the connection and any guest started.
 * @param guests starts the guest a local server runs in (closed here after use)
 * @param checkRepo throws when `repo` may not be mounted in a guest (session/repo-policy.ts); called before a local server's guest starts
 * @throws CortexError('invalid_input') when there is no such server or it is not on (untrusted,
 *   disabled, shadowed); CortexError('guest_failed') when it could not be reached, with why
 */
export async function probeMcpServer(opts: { home: string; repo: string; name: string; guests: GuestProvider; logger?: Logger; checkRepo?: (repo: string) => void }): Promise<ProbeResult> {
  const set = mcpServersFor(opts.home, opts.repo)
  const entry = set.entries.find((e) => e.name === opts.name && e.state !== 'shadowed' && e.state !== 'elsewhere')
  if (!entry) {
    const why = set.problems.find((p) => p.name === opts.name)
    throw new CortexError('invalid_input', why ? `server "${opts.name}" cannot be used: ${why.message} (${why.file})` : `no MCP server named "${opts.name}" (see cortex mcp list)`)
  }
  if (entry.state === 'untrusted') throw new CortexError('invalid_input', `"${opts.name}" from the repository's ${entry.file} is not enabled for ${opts.repo}: testing it would run it; \`cortex mcp enable ${opts.name}\` first`)
  if (entry.state === 'disabled') throw new CortexError('invalid_input', `"${opts.name}" is switched off ("enabled": false): \`cortex mcp enable ${opts.name}\` first`)
  const config = entry.server.config
  const rt = await import('./runtime')
  const guests: Guest[] = []
  const conn = new rt.McpConnection(
    config,
    rt.transportOpener(config, {
      home: opts.home,
      guestFor: async (c, signal) => {
        opts.checkRepo?.(opts.repo) // the guest mounts the folder writable: the session's folder policy first
        const g = await opts.guests.start({ sessionId: `mcp-test-${randomUUID()}`, repo: opts.repo, sandbox: c.network ? 'network' : 'workspace-write', signal, oneOff: true })
        guests.push(g)
        return g
      }
    }),
    opts.logger ?? NOOP_LOGGER
  )
  try {
    await conn.start()
    if (conn.state !== 'ready') throw new CortexError('guest_failed', `"${opts.name}" could not be reached: ${conn.error ?? conn.state}`)
    const tools = conn.tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      tokens: estimateTokens(JSON.stringify({ name: t.name, description: t.description ?? '', input_schema: t.inputSchema })),
      exposed: toolEnabled(config, t.name)
    }))
    return { entry, ...(conn.protocolVersion && { protocolVersion: conn.protocolVersion }), tools, exposedTokens: tools.filter((t) => t.exposed).reduce((n, t) => n + t.tokens, 0) }
  } finally {
    await conn.close()
    await Promise.all(guests.map((g) => g.close().catch(() => undefined)))
  }
}
