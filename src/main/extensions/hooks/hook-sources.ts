/**
 * Where hooks come from: the user's Cortex settings (`<CORTEX_HOME>/settings.json`, key `hooks`) and
 * the repository's `.cortex/settings.json`, `.claude/settings.json`, `.claude/settings.local.json`,
 * read on the host without following links. The repository's hooks get one content hash over
 * every definition AND every repository file a command names (a script such as
 * `$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh`): the trust store keys consent to that hash, so a
 * change to any of them — by anyone, the model in the guest included — turns them off again.
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { isAbsolute, join, normalize, relative, sep } from 'node:path'
import { parseHooksFile, type HookCommand } from './hook-config'

/** The repository's settings files that may hold hooks, in the order they are read. */
export const REPO_HOOK_FILES = ['.cortex/settings.json', '.claude/settings.json', '.claude/settings.local.json'] as const

/** Most repository files named by hook commands that are hashed (the rest still count by name). */
const MAX_NAMED_FILES = 32

/**
 * Reads a repository file on the host without following links: its text, null when absent.
 * @throws Error when it is a link, not a regular file, or too large
 */
export type RepoFileReader = (repo: string, rel: string) => Promise<string | null>

/** The hooks in force for a repository, as read now. */
export interface LoadedHooks {
  /** From the user's own settings: always trusted. */
  user: HookCommand[]
  /** From the repository: run only when the user enabled exactly {@link LoadedHooks.repoHash}. */
  repo: HookCommand[]
  /** sha256 (hex) over the repository's hook definitions and the repository files their commands name; '' when there are none. */
  repoHash: string
  /** Repository-relative files the repository's hooks came from or name (shown on the trust card). */
  repoFiles: string[]
  /** Repository files a hook command names, with a short hash of their content ('missing', 'unreadable: …'). */
  namedFiles: Array<{ file: string; state: string }>
  /** What could not be used, one line each. */
  problems: string[]
}

/**
 * Read the hooks of the user (`home`, may be undefined) and of repository `repo` (absolute host path).
 * Never throws: an unreadable or malformed file is a problem and gives no hooks.
 */
export async function loadHooks(repo: string, home: string | undefined, readRepoFile: RepoFileReader): Promise<LoadedHooks> {
  const problems: string[] = []
  const user: HookCommand[] = []
  if (home) {
    const file = join(home, 'settings.json')
    const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') problems.push(`${file}: cannot be read (${err.message}); your hooks are not used`)
      return null
    })
    if (text !== null) {
      const parsed = parseHooksFile(text, 'user', file)
      user.push(...parsed.hooks)
      problems.push(...parsed.problems)
    }
  }
  const repoHooks: HookCommand[] = []
  const repoFiles: string[] = []
  for (const rel of REPO_HOOK_FILES) {
    let text: string | null
    try {
      text = await readRepoFile(repo, rel)
    } catch (err) {
      problems.push(`${rel}: not read (${err instanceof Error ? err.message : String(err)}); its hooks are not used`)
      repoFiles.push(rel)
      continue
    }
    if (text === null) continue
    const parsed = parseHooksFile(text, 'repository', rel)
    problems.push(...parsed.problems)
    if (parsed.hooks.length > 0) repoFiles.push(rel)
    repoHooks.push(...parsed.hooks)
  }
  const namedFiles = await hashNamedFiles(repo, repoHooks, readRepoFile)
  for (const n of namedFiles) if (!repoFiles.includes(n.file)) repoFiles.push(n.file)
  const repoHash =
    repoHooks.length === 0
      ? ''
      : createHash('sha256')
          .update(JSON.stringify({ hooks: repoHooks.map((h) => [h.file, h.event, h.matcher ?? null, h.command, h.timeoutS]), files: namedFiles }))
          .digest('hex')
  return { user, repo: repoHooks, repoHash, repoFiles, namedFiles, problems }
}

/** The repository files the commands of `hooks` name, each with a hash of its content. */
async function hashNamedFiles(repo: string, hooks: readonly HookCommand[], readRepoFile: RepoFileReader): Promise<LoadedHooks['namedFiles']> {
  const names = new Set<string>()
  for (const h of hooks) for (const rel of namedRepoFiles(h.command, repo)) names.add(rel)
  const out: LoadedHooks['namedFiles'] = []
  for (const file of [...names].sort().slice(0, MAX_NAMED_FILES)) {
    let state: string
    try {
      const text = await readRepoFile(repo, file)
      state = text === null ? 'missing' : `sha256:${createHash('sha256').update(text).digest('hex')}`
    } catch (err) {
      state = `unreadable: ${err instanceof Error ? err.message : String(err)}`
    }
    out.push({ file, state })
  }
  return out
}

/** Shell words (quoted and unquoted pieces joined): a rough split that is enough to find the file names in a hook command. */
const WORD = /(?:"[^"]*"|'[^']*'|[^\s;|&()<>`"'])+/g

/**
 * Repository-relative paths a hook command names: words with a `/` (or starting with `.`), not the
 * target of an output redirection, that lie
 * inside the repository once `$CLAUDE_PROJECT_DIR` / `$CORTEX_PROJECT_DIR` are replaced by it
 * (relative words are taken from the repository root, the hook's working folder).
 */
export function namedRepoFiles(command: string, repo: string): string[] {
  const out: string[] = []
  for (const m of command.matchAll(WORD)) {
    if (command.slice(0, m.index).trimEnd().endsWith('>')) continue // an output redirection's target is written, not run
    let word = m[0].replace(/["']/g, '').replace(/\$\{?(CLAUDE|CORTEX)_PROJECT_DIR\}?/g, repo)
    if (word.startsWith('~') || word.includes('$') || !(word.includes('/') || word.startsWith('.'))) continue
    if (word.startsWith('-')) continue
    word = isAbsolute(word) ? normalize(word) : join(repo, word)
    const rel = relative(repo, word)
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue
    out.push(rel.split(sep).join('/'))
  }
  return out
}
