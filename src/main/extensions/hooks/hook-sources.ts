/**
 * Where hooks come from: the user's Cortex settings (`<CORTEX_HOME>/settings.json`, key `hooks`) and
 * the repository's `.cortex/settings.json`, `.claude/settings.json`, `.claude/settings.local.json`,
 * read on the host without following links. The repository's hooks get one content hash over
 * every definition, every repository file a command names (a script such as
 * `$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh`) AND every file under the folders holding those
 * files and under .claude/hooks and .cortex/hooks (what a script may source or run beside it;
 * capped, over the cap the hooks cannot be enabled): the trust store keys consent to that hash, so
 * a change to any of them — by anyone, the model in the guest included — turns them off again.
 */
import { createHash, randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { hashRepoFiles, namedRepoFiles, type HashedRepoFiles } from '../named-files'
import { parseHooksFile, type HookCommand } from './hook-config'

export { namedRepoFiles } from '../named-files'

/** The repository's settings files that may hold hooks, in the order they are read. */
export const REPO_HOOK_FILES = ['.cortex/settings.json', '.claude/settings.json', '.claude/settings.local.json'] as const

/** Folders whose every file is hashed with the hooks, besides the folders of the files a command names. */
export const HOOK_FOLDERS = ['.claude/hooks', '.cortex/hooks'] as const

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
  /** Folders hashed whole with the hooks (what a named script may source or run beside it), and how many files they hold. */
  hashedFolders: { folders: string[]; files: number }
  /** Why the hooks cannot be enabled (too many or too large files to hash); {@link LoadedHooks.repoHash} then changes at each read. */
  overCap?: string
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
  const hashed = repoHooks.length === 0 ? undefined : hashNamedFiles(repo, repoHooks)
  const named = new Set(repoHooks.flatMap((h) => namedRepoFiles(h.command, repo)))
  const namedFiles = (hashed?.files ?? []).filter((f) => named.has(f.file))
  for (const n of named) if (!repoFiles.includes(n)) repoFiles.push(n)
  const repoHash =
    repoHooks.length === 0 || !hashed
      ? ''
      : hashed.overCap
        ? randomBytes(32).toString('hex') // nothing to bind consent to: never the same twice, so never enabled
        : createHash('sha256')
            .update(JSON.stringify({ hooks: repoHooks.map((h) => [h.file, h.event, h.matcher ?? null, h.command, h.timeoutS]), files: hashed.files }))
            .digest('hex')
  const hashedFolders = { folders: hashed?.folders ?? [], files: (hashed?.files ?? []).filter((f) => !named.has(f.file)).length }
  return { user, repo: repoHooks, repoHash, repoFiles, namedFiles, hashedFolders, ...(hashed?.overCap ? { overCap: hashed.overCap } : {}), problems }
}

/** The repository files the commands of `hooks` name, and every file under their folders and the hook folders, each with a hash of its content. */
function hashNamedFiles(repo: string, hooks: readonly HookCommand[]): HashedRepoFiles {
  const names = new Set<string>()
  for (const h of hooks) for (const rel of namedRepoFiles(h.command, repo)) names.add(rel)
  return hashRepoFiles(repo, names, { extra: HOOK_FOLDERS })
}
