/**
 * An MCP tools/call result as a Cortex tool result: text blocks as text, `structuredContent` as JSON
 * text (unless a text block already carries the same JSON), the first image as ToolResult.image
 * (further images and audio named), resource links and embedded resources as text lines, and the
 * server's `isError` as a model-fixable error. The harness caps the text like any tool's.
 */
import type { CallToolResult } from '@modelcontextprotocol/client'
import type { ToolResult } from '../../tools/tool'

/** File extension of an image MIME type (ToolResult.image names the image). */
const IMAGE_EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' }

/** Map `result` (see the module comment); `label` names the tool in image names ("server-tool"). */
export function mapCallResult(result: CallToolResult, label: string): ToolResult {
  const lines: string[] = []
  let image: ToolResult['image']
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        lines.push(block.text)
        break
      case 'image': {
        const bytes = Buffer.from(block.data, 'base64')
        if (!image) image = { bytes: new Uint8Array(bytes), name: `${label}.${IMAGE_EXT[block.mimeType] ?? 'bin'}` }
        else lines.push(`[another image: ${block.mimeType}, ${bytes.length} bytes, not shown]`)
        break
      }
      case 'audio':
        lines.push(`[audio: ${block.mimeType}, ${Buffer.from(block.data, 'base64').length} bytes, not shown]`)
        break
      case 'resource_link':
        lines.push(`resource link: ${block.name} <${block.uri}>${block.mimeType ? ` (${block.mimeType})` : ''}${block.description ? ` — ${block.description}` : ''}`)
        break
      case 'resource': {
        const r = block.resource
        if ('text' in r && typeof r.text === 'string') lines.push(`resource <${r.uri}>${r.mimeType ? ` (${r.mimeType})` : ''}:\n${r.text}`)
        else lines.push(`resource <${r.uri}>${r.mimeType ? ` (${r.mimeType})` : ''}: binary, ${'blob' in r && typeof r.blob === 'string' ? Buffer.from(r.blob, 'base64').length : 0} bytes, not shown`)
        break
      }
      default:
        lines.push(`[${(block as { type: string }).type} content, not shown]`)
    }
  }
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent)
    const already = lines.some((l) => {
      try {
        return JSON.stringify(JSON.parse(l)) === json
      } catch {
        return false
      }
    })
    if (!already) lines.push(`structuredContent: ${json}`)
  }
  const output = lines.join('\n') || (image ? '(an image)' : '(no content)')
  return { output: result.isError ? `Error: ${output}` : output, ...(result.isError ? { isError: true } : {}), ...(image ? { image } : {}) }
}
