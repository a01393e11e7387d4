/**
 * A real MCP server (the SDK's `Server`, stateful Streamable HTTP on 127.0.0.1, so a question it asks
 * mid-call can be answered) with one tool, `deploy`, that asks the user through elicitation which
 * environment and how many replicas, and answers `deploying to <env> with <n> replicas`, or what the
 * user did instead (`the user declined` / `cancel`). For tests of the question card.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/** A running server. */
export interface ElicitServer {
  /** The Streamable HTTP endpoint. */
  url: string
  /** Close every session and stop listening. Idempotent. */
  close(): Promise<void>
}

/** Start the server on 127.0.0.1, port 0. */
export async function startElicitServer(): Promise<ElicitServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>()
  const sockets = new Set<Socket>()
  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = new Server({ name: 'deployer', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'deploy', description: 'Deploy the service; asks the user where to.', inputSchema: { type: 'object', properties: {} } }]
    }))
    server.setRequestHandler(CallToolRequestSchema, async () => {
      const r = await server.elicitInput({
        message: 'Where should the service be deployed?',
        requestedSchema: {
          type: 'object',
          properties: {
            env: { type: 'string', title: 'Environment', enum: ['staging', 'prod'] },
            replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 9 }
          },
          required: ['env']
        }
      })
      const text = r.action === 'accept' ? `deploying to ${String(r.content?.env)} with ${String(r.content?.replicas ?? 1)} replicas` : `the user chose ${r.action}`
      return { content: [{ type: 'text', text }] }
    })
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, transport)
    })
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId)
    }
    await server.connect(transport)
    return transport
  }
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const body: unknown = text ? JSON.parse(text) : undefined
    const id = req.headers['mcp-session-id']
    const known = typeof id === 'string' ? transports.get(id) : undefined
    if (known) return known.handleRequest(req, res, body)
    if (req.method !== 'POST') {
      res.writeHead(typeof id === 'string' ? 404 : 405).end()
      return
    }
    const isInit = (Array.isArray(body) ? body : [body]).some((m) => (m as { method?: string })?.method === 'initialize')
    if (!isInit) {
      // server/discover probes and requests of an unknown session: this server speaks only the initialize revisions
      res.writeHead(typeof id === 'string' ? 404 : 400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32601, message: 'initialize first' }, id: (body as { id?: unknown })?.id ?? null }))
      return
    }
    await (await newSession()).handleRequest(req, res, body)
  }
  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: String(err) }, id: null }))
    })
  })
  http.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = http.address() as AddressInfo
  let closing: Promise<void> | undefined
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => {
      closing ??= (async () => {
        await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)))
        await new Promise<void>((resolve) => {
          http.close(() => resolve())
          for (const s of sockets) s.destroy()
          http.closeAllConnections()
        })
      })()
      return closing
    }
  }
}
