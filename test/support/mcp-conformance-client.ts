/**
 * The client entry the official MCP conformance suite runs (`conformance client --command "tsx
 * test/support/mcp-conformance-client.ts" --scenario …`; it appends the server URL): Cortex's own
 * MCP connection (src/main/extensions/mcp/connection.ts over its Streamable HTTP transport) connects,
 * lists the tools and calls each with arguments made from its input schema, printing each result as
 * the model would read it. A server that asks for OAuth (the suite's `auth/*` scenarios) makes the
 * connection "needs login": the entry then logs in as `cortex mcp login` does (extensions/mcp/
 * oauth-login.ts), playing the browser with fetch (the suite's authorization server approves at once
 * and redirects to our loopback listener), and connects again. Exits 1 when the server cannot be reached.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { McpServerConfig } from '../../src/main/extensions/mcp/config-types'
import { McpConnection } from '../../src/main/extensions/mcp/connection'
import { mcpOAuthLogin } from '../../src/main/extensions/mcp/oauth-login'
import { mapCallResult } from '../../src/main/extensions/mcp/result-map'
import { transportOpener } from '../../src/main/extensions/mcp/transports'
import { NOOP_LOGGER } from '../../src/shared/logger-types'

/** A value of JSON Schema `schema`'s type (its default when it has one). */
function sample(schema: Record<string, unknown>, i: number): unknown {
  if ('default' in schema) return schema.default
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as unknown
  switch (schema.type) {
    case 'number':
    case 'integer':
      return i + 1
    case 'boolean':
      return true
    case 'array':
      return []
    case 'object':
      return {}
    default:
      return 'conformance'
  }
}

/** The browser's part: follow the authorization URL; the suite's server redirects to our listener at once. */
async function browse(url: URL): Promise<void> {
  const approved = await fetch(url, { redirect: 'manual' })
  const back = approved.headers.get('location')
  if (back) await (await fetch(back)).text()
  else process.stderr.write(`the authorization server did not redirect (${approved.status}): ${await approved.text()}\n`)
}

async function main(): Promise<number> {
  const url = process.argv.at(-1) ?? ''
  const home = mkdtempSync(join(tmpdir(), 'cortex-conformance-'))
  const config: McpServerConfig = { name: 'conformance', transport: 'http', url, timeoutMs: 20_000 }
  const connect = async (): Promise<McpConnection> => {
    const c = new McpConnection(config, transportOpener(config, { home, guestFor: () => Promise.reject(new Error('no guest here')) }), NOOP_LOGGER, (s, m) => process.stderr.write(`${s}: ${m}\n`))
    await c.start()
    return c
  }
  let conn = await connect()
  try {
    if (conn.state === 'needs-login') {
      await conn.close()
      await mcpOAuthLogin({ name: 'conformance', url, home, signal: AbortSignal.timeout(30_000), deadlineMs: 30_000, open: (u) => void browse(u) })
      conn = await connect()
    }
    if (conn.state !== 'ready') {
      process.stderr.write(`not connected: ${conn.error ?? conn.state}\n`)
      return 1
    }
    process.stdout.write(`connected (${conn.protocolVersion ?? 'unknown protocol'}), ${conn.tools.length} tools\n`)
    for (const tool of conn.tools) {
      const props = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>
      const args = Object.fromEntries(Object.entries(props).map(([k, s], i) => [k, sample(s, i)]))
      try {
        const result = await conn.call(tool.name, args, new AbortController().signal)
        process.stdout.write(`${tool.name}: ${mapCallResult(result, tool.name).output}\n`)
      } catch (err) {
        process.stdout.write(`${tool.name}: failed: ${(err as Error).message}\n`)
      }
    }
    return 0
  } finally {
    await conn.close()
    rmSync(home, { recursive: true, force: true })
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`)
    process.exit(1)
  }
)
