/**
 * MCP prompts as slash commands (issue 20): a server's prompt is typed `/mcp__SERVER__PROMPT ARGS…`
 * (Claude Code's naming); the typed words map positionally onto the prompt's declared arguments (a
 * prompt with one argument takes the whole text, `$ARGUMENTS`-style; the last argument takes the
 * words left over), and the `prompts/get` result's messages become the user message: text as text,
 * images as image parts (the session stores them and a model without vision gets a note), embedded
 * text resources inline, everything else named.
 */
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/client'
import { CortexError } from '../../../shared/errors'
import { MAX_IMAGES_PER_MESSAGE, type ImageInput } from '../../../shared/images'
import { argumentWords } from '../commands/expand'

/** What a prompt gives the session: the user message's text and its images. */
export interface McpPromptMessage {
  text: string
  images: ImageInput[]
}

/**
 * `args` (the text typed after the command's name) as the prompt's arguments by name.
 * @throws CortexError('invalid_input') naming every required argument that was not given, with its description
 */
export function promptArguments(command: string, prompt: Pick<Prompt, 'arguments'>, args: string): Record<string, string> {
  const declared = prompt.arguments ?? []
  const out: Record<string, string> = {}
  if (declared.length === 1) {
    if (args) out[declared[0]!.name] = args
  } else if (declared.length > 1) {
    const words = argumentWords(args)
    declared.forEach((a, i) => {
      const value = i === declared.length - 1 ? words.slice(i).join(' ') : words[i]
      if (value) out[a.name] = value
    })
  }
  const missing = declared.filter((a) => a.required && out[a.name] === undefined)
  if (missing.length > 0) {
    const usage = declared.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ')
    const what = missing.map((a) => `${a.name}${a.description ? ` (${a.description})` : ''}`).join(', ')
    throw new CortexError('invalid_input', `/${command} needs ${what}: type /${command} ${usage} (words in order; quote a value with spaces)`)
  }
  return out
}

/** The argument hint a completion list shows for `prompt`: `<required> [optional]`, or undefined for none. */
export function promptArgumentHint(prompt: Pick<Prompt, 'arguments'>): string | undefined {
  const declared = prompt.arguments ?? []
  return declared.length ? declared.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ') : undefined
}

/**
 * The user message `result` becomes. User messages' text is joined by blank lines; an assistant
 * message is marked as such (the prompt wrote it, not the model); images (at most
 * {@link MAX_IMAGES_PER_MESSAGE}) become image parts named after the prompt; audio and binary
 * resources are named, not sent.
 * @throws CortexError('invalid_input') when the prompt gives neither text nor images
 */
export function promptMessage(command: string, result: GetPromptResult): McpPromptMessage {
  const parts: string[] = []
  const images: ImageInput[] = []
  for (const m of result.messages) {
    const c = m.content
    let text: string
    switch (c.type) {
      case 'text':
        text = c.text
        break
      case 'image':
        if (images.length < MAX_IMAGES_PER_MESSAGE) {
          images.push({ data: c.data, mediaType: c.mimeType, name: `/${command} image ${images.length + 1}` })
          continue
        }
        text = `[another image: ${c.mimeType}, not sent: a message carries at most ${MAX_IMAGES_PER_MESSAGE}]`
        break
      case 'audio':
        text = `[audio: ${c.mimeType}, not sent]`
        break
      case 'resource_link':
        text = `resource link: ${c.name} <${c.uri}>${c.mimeType ? ` (${c.mimeType})` : ''}${c.description ? ` — ${c.description}` : ''}`
        break
      case 'resource': {
        const r = c.resource
        text = 'text' in r && typeof r.text === 'string'
          ? `resource <${r.uri}>${r.mimeType ? ` (${r.mimeType})` : ''}:\n${r.text}`
          : `resource <${r.uri}>${r.mimeType ? ` (${r.mimeType})` : ''}: binary, not included`
        break
      }
      default:
        text = `[${(c as { type: string }).type} content, not sent]`
    }
    parts.push(m.role === 'assistant' ? `(the prompt's assistant message)\n${text}` : text)
  }
  const text = parts.join('\n\n').trim()
  if (!text && images.length === 0) throw new CortexError('invalid_input', `/${command} gave an empty prompt`)
  return { text: text || `(/${command} gave ${images.length === 1 ? 'an image' : 'images'})`, images }
}
