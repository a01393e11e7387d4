/**
 * An ACP prompt (content blocks) → the text of one user message, and the slash commands an editor
 * is offered. Text blocks are taken as written; a resource link names its file; an embedded resource
 * (the editor's selection or buffer) is inlined in a fenced block under its URI. Images are refused
 * with a clear error until the session takes image messages.
 */
import type { AvailableCommand, ContentBlock } from '@agentclientprotocol/sdk'
import { CortexError } from '../../shared/errors'
import { SLASH_COMMANDS } from '../tui/slash-commands'

/** Slash commands that act on the terminal UI itself (listing, opening, quitting), not offered to an editor. */
const TERMINAL_ONLY = new Set(['/sessions', '/resume', '/new', '/rules', '/help', '/quit'])

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
 * The user message for `blocks`.
 * @throws CortexError('invalid_input') for an image or audio block, or a prompt with no text at all
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = []
  for (const b of blocks) {
    if (b.type === 'text') parts.push(b.text)
    else if (b.type === 'resource_link') parts.push(`@${uriPath(b.uri)}`)
    else if (b.type === 'resource') {
      const r = b.resource
      if ('text' in r) parts.push(`\n<context uri="${r.uri}">\n${r.text}\n</context>\n`)
      else parts.push(`@${uriPath(r.uri)}`)
    } else {
      // MAPPING POINT (images): when `user_message` takes `images` (the images change: base64
      // `data` + `mediaType`), an image block becomes one of them and initialize says image: true
      throw new CortexError('invalid_input', `a ${b.type} block cannot be sent to Cortex yet: send text, files or selections`)
    }
  }
  const text = parts.join('\n').trim()
  if (!text) throw new CortexError('invalid_input', 'the prompt is empty: say what to do')
  return text
}
