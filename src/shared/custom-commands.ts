/**
 * Custom slash commands and skills as the front ends see them (ADR 0036): the names the built-in
 * slash commands take (a custom command never shadows one), what a `user_message` records when the
 * session expanded a command, the `extension_notice` event (collisions, a skipped file, a command
 * that is not enabled), and the `listCommands` request the TUI and the app complete from.
 */
import { z } from 'zod'

/**
 * The built-in slash commands' names (without the slash): they keep priority over any custom
 * command of the same name, which is then reported once and never expanded. The TUI's list
 * (src/cli/tui/slash-commands.ts) holds exactly these.
 */
export const BUILTIN_SLASH_NAMES = [
  'mode', 'accept', 'reject', 'goal', 'thinking', 'model', 'ask', 'sandbox', 'image', 'compact',
  'sessions', 'resume', 'new', 'rules', 'help', 'quit', 'exit'
] as const

/** Where a command or skill came from: the user's Cortex home (trusted) or the repository (untrusted until enabled). */
export const ExtensionSourceSchema = z.enum(['user', 'repository'])
/** See {@link ExtensionSourceSchema}. */
export type ExtensionSource = z.infer<typeof ExtensionSourceSchema>

/** Where a slash command came from: a custom command's file (user or repository) or a connected MCP server's prompt (`mcp`). */
export const CommandSourceSchema = z.enum(['user', 'repository', 'mcp'])
/** See {@link CommandSourceSchema}. */
export type CommandSource = z.infer<typeof CommandSourceSchema>

/**
 * A custom command the session expanded for a user message: `name` as typed without the slash
 * (`review`, `frontend:component`), `args` the rest of the line (trimmed), the file it came from
 * (repository-relative, or `~cortex/commands/…` for the user's; `MCP server "NAME"` for a prompt), and what its frontmatter asked for
 * the turn: `model` (the turn's model) and `allowedTools` (the Cortex tools the turn is narrowed to).
 */
export const CommandUseSchema = z.object({
  name: z.string(),
  args: z.string(),
  source: CommandSourceSchema,
  file: z.string(),
  model: z.string().optional(),
  allowedTools: z.array(z.string()).optional()
})
/** See {@link CommandUseSchema}. */
export type CommandUse = z.infer<typeof CommandUseSchema>

/** The line a user typed for `use`: `/name args`. */
export function commandLine(use: Pick<CommandUse, 'name' | 'args'>): string {
  return `/${use.name}${use.args ? ` ${use.args}` : ''}`
}

/**
 * `extension_notice`: something about the custom commands or skills the user should know, said
 * once per session and cause (a name collision, a file skipped for bad frontmatter or a link, a
 * repository command typed while the repository's commands are not enabled, skills left out of
 * the prompt for its cap). Persisted and shown in the timeline.
 */
export const EXTENSION_NOTICE_EVENTS = [
  z.object({ type: z.literal('extension_notice'), kind: z.enum(['commands', 'skills', 'mcp']), message: z.string() })
] as const

/** One custom command a front end may offer: name (no slash), its frontmatter's description and argument hint, and whether it expands now. */
export const ListedCommandSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  argumentHint: z.string().optional(),
  source: CommandSourceSchema,
  file: z.string(),
  /** False for a repository command while the repository's commands are not enabled (trust card). */
  enabled: z.boolean()
})
/** See {@link ListedCommandSchema}. */
export type ListedCommand = z.infer<typeof ListedCommandSchema>

/** The `file` a command use and a listed command give for the prompt of MCP server `server`. */
export function mcpPromptFile(server: string): string {
  return `MCP server "${server}"`
}

/** The custom command requests. */
export const COMMAND_REQUESTS = {
  /**
   * The custom commands of open session `sessionId` (user's and repository's, read fresh from disk)
   * and its connected MCP servers' prompts (`mcp__SERVER__PROMPT`), collisions resolved (built-in >
   * user > MCP prompt > repository; built-in names left out), sorted by name.
   */
  listCommands: {
    input: z.object({ sessionId: z.string().min(1) }),
    output: z.object({ commands: z.array(ListedCommandSchema) })
  }
} as const
