/**
 * An ACP prompt (content blocks) → the text of one user message, and the slash commands an editor
 * is offered. Text blocks are taken as written; a resource link names its file; an embedded resource
 * (the editor's selection or buffer) is inlined in a fenced block under its URI. An image block
 * becomes an image part of the message (the session checks and stores it; ADR 0025); audio is refused.
 */
import type { AvailableCommand, ContentBlock } from '@agentclientprotocol/sdk'
import { CortexError } from '../../shared/errors'
import type { ImageInput } from '../../shared/images'
import { SLASH_COMMANDS } from '../tui/slash-commands'

/** Slash commands that act on the terminal UI itself (listing, opening, quitting), not offered to an editor. */
const TERMINAL_ONLY = new Set(['/sessions', '/resume', '/new', '/rules', '/help', '/quit', '/image'])

/** The commands advertised in `available_commands_update`: the session's slash commands, without the slash. */
export function availableCommands(): AvailableCommand[] {
  return SLASH_COMMANDS.filter((c) => !TERMINAL_ONLY.has(c.name)).map((c) => ({
    name: c.name.slice(1),
    description: c.help,
    ...(c.args ? { input: { hint: c.args } } : {})
  }))
}

/** Whether `text` is one of the advertised commands (`/mode plan`, `/accept`). */
export function isCommand(text: string): boolean {
  const head = text.trim().split(/\s+/)[0]?.toLowerCase() ?? ''
  return SLASH_COMMANDS.some((c) => c.name === head && !TERMINAL_ONLY.has(c.name))
}

/** A path out of a `file://` URI, or the URI itself. */
function uriPath(uri: string): string {
  try {
    return uri.startsWith('file://') ? decodeURIComponent(new URL(uri).pathname) : uri
  } catch {
    return uri
  }
}

/**
 * The user message for `blocks`: its text, and its images (base64 as the editor sent them).
 * @throws CortexError('invalid_input') for an audio block, or a prompt with neither text nor an image
 */
export function promptMessage(blocks: readonly ContentBlock[]): { text: string; images: ImageInput[] } {
  const parts: string[] = []
  const images: ImageInput[] = []
  for (const b of blocks) {
    if (b.type === 'text') parts.push(b.text)
    else if (b.type === 'resource_link') parts.push(`@${uriPath(b.uri)}`)
    else if (b.type === 'resource') {
      const r = b.resource
      if ('text' in r) parts.push(`\n<context uri="${r.uri}">\n${r.text}\n</context>\n`)
      else parts.push(`@${uriPath(r.uri)}`)
    } else if (b.type === 'image') {
      const name = b.uri ? uriPath(b.uri).split('/').pop() : undefined
      images.push({ data: b.data, mediaType: b.mimeType, ...(name ? { name } : {}) })
    } else {
      throw new CortexError('invalid_input', `a ${b.type} block cannot be sent to Cortex: send text, images, files or selections`)
    }
  }
  const text = parts.join('\n').trim()
  if (!text && images.length === 0) throw new CortexError('invalid_input', 'the prompt is empty: say what to do')
  return { text, images }
}

/**
 * The text of the user message for `blocks` (its images left out).
 * @throws CortexError('invalid_input') as {@link promptMessage}
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  return promptMessage(blocks).text
}
