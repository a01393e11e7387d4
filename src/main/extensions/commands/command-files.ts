/**
 * Finding custom commands (ADR 0036): Markdown files under the repository's `.cortex/commands/` and
 * `.claude/commands/` and the user's CORTEX_HOME/commands/, sub-folders as namespaces
 * (`frontend/component.md` is `/frontend:component`, as in Claude Code). Repository files are read
 * from the host without following a link (a link, a non-regular file or one over 1 MiB is skipped
 * and reported); the user's own folder is read as it is. Collisions resolve built-in > user >
 * `.cortex` > `.claude`, each reported.
 */
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs'
import { join } from 'node:path'
import { BUILTIN_SLASH_NAMES, type ExtensionSource } from '../../../shared/custom-commands'
import { parseFrontmatter, stringField } from './frontmatter'
import { walkMarkdown, type RepoReader } from './repo-walk'
import { capNotices } from '../notice-cap'

/** The repository's command folders, the first winning a collision. */
export const REPO_COMMAND_DIRS = ['.cortex/commands', '.claude/commands'] as const
/** Most command files read from one folder (the rest are left out with a notice). */
export const MAX_COMMAND_FILES = 200
/** Largest user command file read (bytes); repository files are capped by the reader (1 MiB). */
const MAX_USER_FILE_BYTES = 1024 * 1024

/** One custom command as found on disk. */
export interface CommandFile {
  /** As typed, without the slash: `review`, `frontend:component`. */
  name: string
  source: ExtensionSource
  /** Where it came from: repository-relative (`.claude/commands/review.md`) or `~cortex/commands/…`. */
  file: string
  description?: string
  argumentHint?: string
  model?: string
  /** The frontmatter's `allowed-tools` as written (Claude Code's names; mapped by ./allowed-tools.ts). */
  allowedTools?: string
  /** The Markdown after the frontmatter: the prompt the command expands to. */
  body: string
}

/** What a scan found: the commands by name (collisions resolved), the repository's files (for the trust hash) and what to tell the user. */
export interface CommandScan {
  commands: Map<string, CommandFile>
  /** Every repository command file read, repository-relative path and bytes, sorted by path (the trust hash covers them). */
  repoFiles: Array<{ rel: string; bytes: Buffer }>
  /** Problems and collisions, one sentence each. */
  notices: string[]
}

/** A command name built from a path under a commands folder: `frontend/component.md` → `frontend:component`; null when a segment is not a plain name. */
export function commandName(relUnderDir: string): string | null {
  const segs = relUnderDir.replace(/\.md$/i, '').split('/')
  return segs.every((s) => /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(s)) ? segs.join(':') : null
}

/** Parse one command file's text into a {@link CommandFile}; throws Error (frontmatter) with a readable reason. */
function parseCommand(name: string, source: ExtensionSource, file: string, text: string): CommandFile {
  const { data, body } = parseFrontmatter(text)
  const description = stringField(data, 'description')
  const argumentHint = stringField(data, 'argument-hint')
  const model = stringField(data, 'model')
  const allowedTools = stringField(data, 'allowed-tools')
  return { name, source, file, body: body.trim(), ...(description ? { description } : {}), ...(argumentHint ? { argumentHint } : {}), ...(model ? { model } : {}), ...(allowedTools ? { allowedTools } : {}) }
}

/** The user's commands under `dir` (their own folder: links followed, not reported). */
function userCommands(dir: string, notices: string[]): CommandFile[] {
  const out: CommandFile[] = []
  const walk = (abs: string, rel: string, depth: number): void => {
    let entries: Dirent[]
    try {
      entries = readdirSync(abs, { withFileTypes: true })
    } catch {
      return // absent: no user commands
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const childRel = rel ? `${rel}/${e.name}` : e.name
      const child = join(abs, e.name)
      let st
      try {
        st = statSync(child)
      } catch {
        continue
      }
      if (st.isDirectory() && depth < 4) walk(child, childRel, depth + 1)
      else if (st.isFile() && /\.md$/i.test(e.name) && out.length < MAX_COMMAND_FILES) {
        const file = `~cortex/commands/${childRel}`
        const name = commandName(childRel)
        if (!name) { notices.push(`${file} was skipped: a command name holds only letters, digits, '_', '.' and '-'`); continue }
        if (st.size > MAX_USER_FILE_BYTES) { notices.push(`${file} was skipped: it is over 1 MiB`); continue }
        try {
          out.push(parseCommand(name, 'user', file, readFileSync(child, 'utf8')))
        } catch (err) {
          notices.push(`${file} was skipped: ${(err as Error).message}`)
        }
      }
    }
  }
  walk(dir, '', 0)
  return out
}

/**
 * Scan the user's and the repository's commands.
 * @param repo the repository (host path); `read` reads one of its files without following links
 * @param home CORTEX_HOME (the user's commands are in `home/commands`); absent: no user commands
 */
export function scanCommands(repo: string, home: string | undefined, read: RepoReader): CommandScan {
  const notices: string[] = []
  const repoFiles: CommandScan['repoFiles'] = []
  const found: CommandFile[] = home ? userCommands(join(home, 'commands'), notices) : []
  for (const dir of REPO_COMMAND_DIRS) {
    for (const rel of walkMarkdown(repo, dir, MAX_COMMAND_FILES, notices)) {
      const name = commandName(rel.slice(dir.length + 1))
      if (!name) { notices.push(`${rel} was skipped: a command name holds only letters, digits, '_', '.' and '-'`); continue }
      let bytes: Buffer | null
      try {
        bytes = read(rel)
      } catch (err) {
        notices.push(`${rel} was skipped: ${(err as Error).message}`)
        continue
      }
      if (bytes === null) continue
      repoFiles.push({ rel, bytes })
      try {
        found.push(parseCommand(name, 'repository', rel, bytes.toString('utf8')))
      } catch (err) {
        notices.push(`${rel} was skipped: ${(err as Error).message}`)
      }
    }
  }
  const builtins = new Set<string>(BUILTIN_SLASH_NAMES)
  const commands = new Map<string, CommandFile>()
  for (const c of found) {
    if (builtins.has(c.name.toLowerCase())) {
      notices.push(`/${c.name} from ${c.file} is not used: /${c.name} is a built-in command, which keeps priority`)
      continue
    }
    const earlier = commands.get(c.name)
    if (earlier) {
      notices.push(`/${c.name} from ${c.file} is not used: ${earlier.file} defines it too and comes first`)
      continue
    }
    commands.set(c.name, c)
  }
  repoFiles.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0))
  return { commands, repoFiles, notices: capNotices(notices, 'the command files') }
}
