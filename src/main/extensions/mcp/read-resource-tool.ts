/**
 * `mcp_read_resource` (issue 20): the connected MCP servers' resources for the model, read-only (it
 * lists with `resources/list` and reads with `resources/read`; nothing is called that acts), offered
 * while some ready server declares resources. Listing is capped and paged by offset; a read gives
 * text contents (and text-typed blobs) as text (the harness caps it like any tool result), the first image blob as the
 * result's image, other binary contents named with their size. Tool results' resource links name
 * the URI (result-map.ts), so the model can read them here.
 */
import { z } from 'zod'
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/client'
import { defineTool, ToolError, type ToolDefinition, type ToolResult } from '../../tools/tool'
import { McpCallError, type McpConnection } from './connection'

/** The tool's name. */
export const READ_RESOURCE_TOOL = 'mcp_read_resource'
/** Most resources one listing shows. */
export const MAX_LISTED_RESOURCES = 100
/** Image types a blob may be shown as (ToolResult.image checks the bytes). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
/** Types a blob is decoded as UTF-8 text for. */
const TEXT_TYPE = /^(text\/|application\/(json|xml|yaml|x-yaml|javascript)\b)/

const Input = z.object({
  server: z.string().optional().describe('The MCP server; needed to read when more than one server has resources.'),
  uri: z.string().min(1).optional().describe('The resource to read (a URI from a listing or a tool result\'s resource link). Omit it to list resources.'),
  offset: z.number().int().min(0).optional().describe('Listing only: skip this many resources (for the next page).')
})

/**
 * The tool over the connections `servers()` returns now (ready, with resources).
 * @param servers the connections whose resources the model may list and read
 */
export function mcpReadResourceTool(servers: () => readonly McpConnection[]): ToolDefinition {
  const names = (): string => servers().map((c) => `"${c.config.name}"`).join(', ')
  return defineTool({
    name: READ_RESOURCE_TOOL,
    description: `List or read the resources (files, documents, records) of the connected MCP servers (${names()}). Without "uri" it lists them (URI, name, type); with "uri" it reads one. A tool result's "resource link" names a URI to read here.`,
    inputSchema: Input,
    readOnly: true,
    needsGuest: false,
    async execute(input, ctx) {
      const all = servers()
      const picked = input.server === undefined ? all : all.filter((c) => c.config.name === input.server)
      if (picked.length === 0) throw new ToolError(input.server === undefined ? 'no connected MCP server has resources now' : `no connected MCP server "${input.server}" with resources; servers with resources: ${names() || 'none'}`)
      try {
        if (input.uri === undefined) return { output: await list(picked, input.offset ?? 0, ctx.signal) }
        if (picked.length > 1) throw new ToolError(`say which server "${input.uri}" is on: one of ${names()}`)
        const result = await picked[0]!.resources(`resources/read ${input.uri}`, ctx.signal, (client, opts) => client.readResource({ uri: input.uri! }, opts))
        return readResult(result)
      } catch (err) {
        if (err instanceof McpCallError) throw new ToolError(err.message)
        throw err
      }
    }
  })
}

/** The resources of `conns` from `offset`, at most {@link MAX_LISTED_RESOURCES}, with how to get the rest. */
async function list(conns: readonly McpConnection[], offset: number, signal: AbortSignal): Promise<string> {
  const rows: Array<{ server: string; r: Resource }> = []
  for (const conn of conns) {
    const { resources } = await conn.resources('resources/list', signal, (client, opts) => client.listResources(undefined, opts))
    for (const r of resources) rows.push({ server: conn.config.name, r })
  }
  if (rows.length === 0) return 'No resources listed.'
  const page = rows.slice(offset, offset + MAX_LISTED_RESOURCES)
  const lines = page.map(({ server, r }) => `- [${server}] ${r.uri} — ${r.title ?? r.name}${r.mimeType ? ` (${r.mimeType})` : ''}${r.description ? `: ${r.description.split('\n')[0]!.slice(0, 200)}` : ''}`)
  const left = rows.length - offset - page.length
  if (left > 0) lines.push(`… ${left} more: call again with offset ${offset + page.length}`)
  return `${rows.length} resource${rows.length === 1 ? '' : 's'}${offset ? ` (from ${offset})` : ''}:\n${lines.join('\n')}`
}

/** A `resources/read` result as a tool result (see the module comment). */
function readResult(result: ReadResourceResult): ToolResult {
  const parts: string[] = []
  let image: ToolResult['image']
  for (const c of result.contents) {
    const type = c.mimeType ? ` (${c.mimeType})` : ''
    if ('text' in c && typeof c.text === 'string') parts.push(result.contents.length > 1 ? `<${c.uri}>${type}:\n${c.text}` : c.text)
    else if ('blob' in c && typeof c.blob === 'string') {
      const bytes = Buffer.from(c.blob, 'base64')
      if (c.mimeType && TEXT_TYPE.test(c.mimeType)) parts.push(result.contents.length > 1 ? `<${c.uri}>${type}:\n${bytes.toString('utf8')}` : bytes.toString('utf8'))
      else if (!image && c.mimeType && IMAGE_TYPES.has(c.mimeType)) {
        image = { bytes: new Uint8Array(bytes), name: c.uri.split('/').pop() || 'resource' }
        parts.push(`<${c.uri}>${type}: an image, ${bytes.length} bytes`)
      } else parts.push(`<${c.uri}>${type}: binary, ${bytes.length} bytes, not shown`)
    }
  }
  return { output: parts.join('\n\n') || '(the resource is empty)', ...(image ? { image } : {}) }
}
