/**
 * A session's custom commands (ADR 0036): read fresh from disk at each use (command-files.ts), the
 * repository's expanded only while the user has enabled them (trust key `commands`, a sha256 over
 * every repository command file, so any change — by anyone, the model in the guest included —
 * disables them until the user looks again). `expand` is the one place a typed `/name args`
 * becomes the prompt the model gets, for every front end. Collisions and problems are told once.
 * The connected MCP servers' prompts are commands too (`/mcp__SERVER__PROMPT`, fetched by
 * `mcpPrompt`): after built-ins and the user's own commands, before the repository's.
 */
import { CortexError } from '../../../shared/errors'
import { BUILTIN_SLASH_NAMES, mcpPromptFile, type CommandUse, type ListedCommand } from '../../../shared/custom-commands'
import type { ImageInput } from '../../../shared/images'
import type { TrustItem } from '../../../shared/extensions'
import { readRepoFile } from '../repo-file'
import { MCP_TOOL_PREFIX } from '../mcp/names'
import { trustHash } from '../trust-store'
import type { ExtensionContext, ExtensionProvider, McpPromptCommand, SessionExtensions } from '../types'
import { scanCommands, type CommandScan } from './command-files'
import { expandCommand, mapAllowedTools, splitCommandLine } from './expand'

/** The trust store key of a repository's custom commands. */
export const COMMANDS_TRUST_KEY = 'commands'
/** Longest trust card detail (characters): the commands' prompts in full up to this. */
const MAX_DETAIL_CHARS = 20_000

/** What a user message becomes: the text the model gets and, for a command, what was used. */
export interface ExpandedMessage {
  text: string
  command?: CommandUse
}

/** The trust hash over repository files (path and bytes each), in the order given. */
export function filesHash(files: ReadonlyArray<{ rel: string; bytes: Uint8Array }>): string {
  return trustHash(...files.flatMap((f) => [f.rel, f.bytes]))
}

/** Where the session's MCP prompts come from (its extensions). */
export type McpPrompts = Pick<SessionExtensions, 'mcpPrompts' | 'getMcpPrompt' | 'mcpSettled'>

/** A session's custom commands: the session calls {@link expand} and {@link list}; as a provider it names the repository's commands on the trust card. */
export class SessionCommands implements ExtensionProvider {
  readonly name = 'commands'
  private readonly told = new Set<string>()

  private readonly fetching = new Set<AbortController>()

  /**
   * @param ctx the session's extension context (repository, home, trust store, emit)
   * @param prompts the connected MCP servers' prompts (the session's extensions), offered as commands after the user's own
   */
  constructor(private readonly ctx: Pick<ExtensionContext, 'repo' | 'home' | 'trust' | 'emit'>, private readonly prompts?: () => McpPrompts) {}

  /** Scan now; tells the user each new notice once. */
  scan(): CommandScan & { hash: string | null; enabled: boolean } {
    const scan = scanCommands(this.ctx.repo, this.ctx.home, (rel) => readRepoFile(this.ctx.repo, rel))
    for (const n of scan.notices) this.tell(n)
    const hash = scan.repoFiles.length ? filesHash(scan.repoFiles) : null
    return { ...scan, hash, enabled: hash !== null && (this.ctx.trust?.isTrusted(this.ctx.repo, COMMANDS_TRUST_KEY, hash) ?? false) }
  }

  /** {@link ExtensionProvider.trustItems}: the repository's commands, while not enabled at their current content. */
  trustItems(): readonly TrustItem[] {
    const { commands, hash, enabled, repoFiles } = this.scan()
    if (!hash || enabled) return []
    const repoCommands = [...commands.values()].filter((c) => c.source === 'repository')
    // what the model will get as the user's message: each command's prompt in full, up to a cap
    let detail = [
      `Slash commands from ${repoFiles.map((f) => f.rel).join(', ')}. Each expands to this prompt, sent to the model as your message when you type it:`,
      ...repoCommands.map((c) => [
        `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''} — ${c.description ?? c.file}${c.allowedTools ? ` (tools: ${c.allowedTools})` : ''}${c.model ? ` (model: ${c.model})` : ''}`,
        ...c.body.split('\n').map((l) => `    ${l}`)
      ].join('\n'))
    ].join('\n')
    if (detail.length > MAX_DETAIL_CHARS) detail = `${detail.slice(0, MAX_DETAIL_CHARS)}\n… ${detail.length - MAX_DETAIL_CHARS} more characters: read the files themselves before enabling them`
    const state = this.ctx.trust?.wasTrusted(this.ctx.repo, COMMANDS_TRUST_KEY) ? 'changed' : 'new'
    return [{ key: COMMANDS_TRUST_KEY, kind: 'commands', title: `${repoCommands.length} custom command${repoCommands.length === 1 ? '' : 's'} from the repository`, detail, hash, state }]
  }

  /** The commands a front end may offer, by name. */
  list(): ListedCommand[] {
    const { commands, enabled } = this.scan()
    const prompts = this.visiblePrompts(commands)
    const taken = new Set(prompts.map((p) => p.name))
    const files: ListedCommand[] = [...commands.values()].filter((c) => !taken.has(c.name)).map((c) => ({
      name: c.name, source: c.source, file: c.file, enabled: c.source === 'user' || enabled,
      ...(c.description ? { description: c.description } : {}), ...(c.argumentHint ? { argumentHint: c.argumentHint } : {})
    }))
    const mcp: ListedCommand[] = prompts.map((p) => ({
      name: p.name, source: 'mcp', file: mcpPromptFile(p.server), enabled: true,
      ...(p.description ? { description: p.description } : {}), ...(p.argumentHint ? { argumentHint: p.argumentHint } : {})
    }))
    return [...files, ...mcp].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  /**
   * The message of a typed `/mcp__SERVER__PROMPT args`: waits (bounded, Stop ends it) for servers
   * still connecting, then fetches the prompt from its server. Undefined when `typed` does not start
   * with `/mcp__`; a name no server offers (or the user's own command of that name, which wins) is
   * expanded like any other message. Stop (or the session's close) aborts the wait and the fetch.
   * @returns the message's text and images and what was typed; rejects with CortexError('invalid_input') (a missing argument, the server's error) or an AbortError
   */
  mcpPrompt(typed: string): Promise<ExpandedMessage & { images: ImageInput[] }> | undefined {
    const line = splitCommandLine(typed)
    const source = this.prompts?.()
    if (!line || !source || !line.name.startsWith(MCP_TOOL_PREFIX)) return undefined
    const abort = new AbortController()
    this.fetching.add(abort)
    return (async () => {
      await source.mcpSettled(abort.signal)
      if (abort.signal.aborted) throw abort.signal.reason as Error
      const prompt = this.visiblePrompts(this.scan().commands).find((p) => p.name === line.name)
      if (!prompt) return { ...this.expand(typed), images: [] }
      const command: CommandUse = { name: prompt.name, args: line.args, source: 'mcp', file: mcpPromptFile(prompt.server) }
      const m = await source.getMcpPrompt(prompt.name, line.args, abort.signal)
      return { text: m.text, images: m.images, command }
    })().finally(() => this.fetching.delete(abort))
  }

  /** End every prompt fetch in flight (Stop). */
  stopPrompts(): void {
    for (const a of this.fetching) a.abort(new DOMException('stopped', 'AbortError'))
  }

  /** {@link ExtensionProvider.close}: fetches in flight end. */
  async close(): Promise<void> {
    this.stopPrompts()
  }

  /** The MCP prompts offered now: a built-in's or the user's own command's name wins (told once); a prompt wins over a repository command (told once). */
  private visiblePrompts(commands: CommandScan['commands']): McpPromptCommand[] {
    const out: McpPromptCommand[] = []
    for (const p of this.prompts?.().mcpPrompts() ?? []) {
      const cmd = commands.get(p.name)
      if ((BUILTIN_SLASH_NAMES as readonly string[]).includes(p.name)) this.tell(`/${p.name} is a built-in command: the MCP server "${p.server}"'s prompt of that name is not offered`)
      else if (cmd?.source === 'user') this.tell(`/${p.name} is your command (${cmd.file}): the MCP server "${p.server}"'s prompt of that name is not offered`)
      else {
        if (cmd) this.tell(`/${p.name} is the MCP server "${p.server}"'s prompt: the repository's command ${cmd.file} of that name is not used`)
        out.push(p)
      }
    }
    return out
  }

  /**
   * What `text` becomes: a `/name args` naming a usable custom command is expanded; anything else
   * (a plain message, a built-in's name, an unknown name, a repository command not enabled) is
   * sent as typed, the last with a notice saying why.
   * @throws CortexError('invalid_input') when the command expands to nothing (an empty file, no arguments)
   */
  expand(text: string): ExpandedMessage {
    const typed = splitCommandLine(text)
    if (!typed) return { text }
    const scan = this.scan()
    const cmd = scan.commands.get(typed.name)
    if (!cmd) return { text }
    if (cmd.source === 'repository' && !scan.enabled) {
      const changed = this.ctx.trust?.wasTrusted(this.ctx.repo, COMMANDS_TRUST_KEY) ?? false
      this.ctx.emit({
        type: 'extension_notice', kind: 'commands',
        message: `/${cmd.name} is this repository's command (${cmd.file}), and the repository's commands are not enabled${changed ? ' (they changed since you enabled them)' : ''}: the message was sent as typed. Enable them on the trust card, after reading them.`
      })
      return { text }
    }
    const expanded = expandCommand(cmd.body, typed.args).trim()
    if (!expanded) throw new CortexError('invalid_input', `/${cmd.name} (${cmd.file}) is empty: write its prompt in the file, or give arguments`)
    let allowedTools: string[] | undefined
    if (cmd.allowedTools) {
      const mapped = mapAllowedTools(cmd.allowedTools)
      allowedTools = mapped.tools
      if (mapped.unknown.length) this.tell(`/${cmd.name} (${cmd.file}) names tools Cortex does not have in allowed-tools: ${mapped.unknown.join(', ')}; they are left out`)
    }
    const command: CommandUse = {
      name: cmd.name, args: typed.args, source: cmd.source, file: cmd.file,
      ...(cmd.model ? { model: cmd.model } : {}), ...(allowedTools ? { allowedTools } : {})
    }
    return { text: expanded, command }
  }

  private tell(message: string): void {
    if (this.told.has(message)) return
    this.told.add(message)
    this.ctx.emit({ type: 'extension_notice', kind: 'commands', message })
  }
}
