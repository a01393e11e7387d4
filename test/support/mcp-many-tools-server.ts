/**
 * A real MCP server over Streamable HTTP on 127.0.0.1 (ephemeral port) with many generated tools,
 * written with the official SDK's server package (@modelcontextprotocol/sdk 1.x, the `Server` class,
 * stateless transport): for tests of schema deferral, where a catalog of 200 tools must not be sent
 * whole. Each tool `<topic>_<verb>` has a description and a JSON Schema of a few properties; a call
 * answers `called <tool> with <arguments as JSON>` and is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const TOPICS = ['invoice', 'weather', 'calendar', 'ticket', 'customer', 'shipment', 'payroll', 'inventory', 'forecast', 'contract',
  'campaign', 'warehouse', 'survey', 'budget', 'meeting', 'release', 'incident', 'vendor', 'lead', 'audit']
const VERBS = ['create', 'get', 'list', 'update', 'delete', 'search', 'archive', 'export', 'approve', 'summarize']

/** One generated tool as listed: name, description, JSON Schema of its input. */
export interface GeneratedTool {
  name: string
  description: string
  inputSchema: Record<string, unknown>
}

/** The `count` generated tools (at most 200), in listing order: every verb of a topic, then the next topic. */
export function generatedTools(count = 200): GeneratedTool[] {
  const out: GeneratedTool[] = []
  for (const topic of TOPICS) {
    for (const verb of VERBS) {
      if (out.length >= count) return out
      out.push({
        name: `${topic}_${verb}`,
        description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${topic} records in the company's ${topic} system. ` +
          `Use this when the user asks to ${verb} a ${topic}; it answers with the ${topic} records it touched, ` +
          'their identifiers, owners and timestamps, and never changes anything it was not asked to change.',
        inputSchema: {
          type: 'object',
          properties: {
            id: { type: 'string', description: `The ${topic} identifier, e.g. ${topic.slice(0, 3).toUpperCase()}-1042.` },
            owner: { type: 'string', description: `Who owns the ${topic}: an email address of the company.` },
            limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Most records to return (default 50).' },
            since: { type: 'string', format: 'date-time', description: 'Only records changed since this instant (ISO 8601).' },
            tags: { type: 'array', items: { type: 'string' }, description: `Labels the ${topic} must carry, all of them.` }
          },
          required: ['id']
        }
      })
    }
  }
  return out
}

/** A running server. */
export interface ManyToolsServer {
  /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string
  /** Every `tools/call` received, in order (live array). */
  calls: Array<{ name: string; arguments: unknown }>
  /** How many `tools/list` requests were answered. */
  listed(): number
  /** Stop listening and destroy open sockets. Idempotent. */
  close(): Promise<void>
}

/**
 * Start the server on 127.0.0.1, port 0.
 * @param count how many tools to list (default 200)
 * @param name the server's name in its `initialize` answer
 */
export async function startManyToolsServer(count = 200, name = 'many-tools'): Promise<ManyToolsServer> {
  const tools = generatedTools(count)
  const calls: ManyToolsServer['calls'] = []
  let listed = 0
  const sockets = new Set<Socket>()

  const mcpServer = (): Server => {
    const s = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {} } })
    s.setRequestHandler(ListToolsRequestSchema, () => {
      listed++
      return { tools }
    })
    s.setRequestHandler(CallToolRequestSchema, (req) => {
      const { name: tool, arguments: args } = req.params
      calls.push({ name: tool, arguments: args })
      if (!tools.some((t) => t.name === tool)) return { content: [{ type: 'text', text: `no tool ${tool}` }], isError: true }
      return { content: [{ type: 'text', text: `called ${tool} with ${JSON.stringify(args ?? {})}` }] }
    })
    return s
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if ((req.url ?? '').split('?')[0] !== '/mcp') {
      res.writeHead(404).end()
      return
    }
    if (req.method !== 'POST') {
      // stateless: no standalone SSE stream and no session to delete
      res.writeHead(405, { allow: 'POST' }).end()
      return
    }
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    const server = mcpServer()
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res, body)
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
    calls,
    listed: () => listed,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        http.close(() => resolve())
        for (const s of sockets) s.destroy()
        http.closeAllConnections()
      })
      return closing
    }
  }
}
