/**
 * A session's custom commands (ADR 0036): read fresh from disk at each use (command-files.ts), the
 * repository's expanded only while the user has enabled them (trust key `commands`, a sha256 over
 * every repository command file, so any change — by anyone, the model in the guest included —
 * disables them until the user looks again). `expand` is the one place a typed `/name args`
 * becomes the prompt the model gets, for every front end. Collisions and problems are told once.
 */
import { createHash } from 'node:crypto'
import { CortexError } from '../../../shared/errors'
import type { SessionEvent } from '../../../shared/events'
import type { CommandUse, ListedCommand } from '../../../shared/custom-commands'
import { scanCommands, type CommandScan } from './command-files'
import { expandCommand, mapAllowedTools, splitCommandLine } from './expand'
import type { RepoReader } from './repo-walk'

/** The trust store key of a repository's custom commands. */
export const COMMANDS_TRUST_KEY = 'commands'

/** What the commands need from the session. */
export interface CommandsContext {
  repo: string
  /** CORTEX_HOME (the user's commands are in `home/commands`); absent: none. */
  home?: string
  read: RepoReader
  /** Whether the user enabled this repository's `key` at `hash`. */
  isTrusted(key: string, hash: string): boolean
  emit(event: SessionEvent): void
}

/** What a user message becomes: the text the model gets and, for a command, what was used. */
export interface ExpandedMessage {
  text: string
  command?: CommandUse
}

/** sha256 hex over repository files (path and text each), in the order given. */
export function filesHash(files: ReadonlyArray<{ rel: string; text: string }>): string {
  const h = createHash('sha256')
  for (const f of files) h.update(`${f.rel}\0${f.text.length}\0${f.text}\0`)
  return h.digest('hex')
}

/** A session's custom commands. */
export class SessionCommands {
  private readonly told = new Set<string>()

  /** @param ctx see {@link CommandsContext} */
  constructor(private readonly ctx: CommandsContext) {}

  /** Scan now; tells the user each new notice once. */
  scan(): CommandScan & { hash: string | null; enabled: boolean } {
    const scan = scanCommands(this.ctx.repo, this.ctx.home, this.ctx.read)
    for (const n of scan.notices) this.tell(n)
    const hash = scan.repoFiles.length ? filesHash(scan.repoFiles) : null
    return { ...scan, hash, enabled: hash !== null && this.ctx.isTrusted(COMMANDS_TRUST_KEY, hash) }
  }

  /** The commands a front end may offer, by name. */
  list(): ListedCommand[] {
    const { commands, enabled } = this.scan()
    return [...commands.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((c) => ({
        name: c.name, source: c.source, file: c.file, enabled: c.source === 'user' || enabled,
        ...(c.description ? { description: c.description } : {}), ...(c.argumentHint ? { argumentHint: c.argumentHint } : {})
      }))
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
      this.ctx.emit({
        type: 'extension_notice', kind: 'commands',
        message: `/${cmd.name} is this repository's command (${cmd.file}), and the repository's commands are not enabled: the message was sent as typed. Enable them when asked, after reading them.`
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
