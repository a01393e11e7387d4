/**
 * Turn-end check of the files that tools on the HOST run without asking: direnv's `.envrc`, editor
 * and IDE folders (`.vscode/`, `.idea/`), git hook managers (`.husky/`, `.pre-commit-config.yaml`),
 * `package.json` scripts and package-manager config that runs code (`.npmrc`, `.yarnrc*`,
 * `.pnpmfile.cjs`), `.gitattributes`/`.gitmodules`, dev containers, agents' extension files (hooks,
 * commands, skills, agents, MCP servers: `.claude/`, `.cortex/`, `.mcp.json`), config an editor's linter or formatter loads as code (`eslint.config.*`,
 * `.prettierrc.*`), `lefthook.yml`, `*.code-workspace`, and git's own control files, plus any
 * nested `.git` or `.envrc` deeper in the tree (a nested repository's config runs when the host's
 * `git status` recurses into it). {@link snapshotHostExec} fingerprints them at a turn's start (host
 * file system, never following a link out of the repository or opening anything but a regular file,
 * non-blocking; a watched name that is a link is also fingerprinted by what it names),
 * {@link diffHostExec} lists what changed at its end (fingerprints: ./host-file-fingerprint.ts).
 */
import { promises as fsp } from 'node:fs'
import { join, sep } from 'node:path'
import { fingerprint, lstat } from './host-file-fingerprint'

/** Top-level files host tools act on without asking. */
export const HOST_EXEC_FILES = [
  '.envrc', '.gitattributes', '.gitmodules', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', '.pre-commit-config.yaml',
  'mise.toml', '.mise.toml',
  // run by an editor's linter/formatter integration when the folder opens, and by git hook managers
  'eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts', '.eslintrc.js', '.eslintrc.cjs',
  '.prettierrc.js', '.prettierrc.cjs', '.prettierrc.mjs', 'prettier.config.js', 'prettier.config.cjs', 'prettier.config.mjs',
  'lefthook.yml', 'lefthook.yaml', '.lefthook.yml', '.lefthook.yaml', 'lefthook-local.yml', '.lefthook-local.yml',
  // agents' MCP servers (an agent on the host starts them)
  '.mcp.json'
] as const
/** Top-level files by suffix: a VS Code workspace file can hold tasks that run when the folder opens. */
const HOST_EXEC_SUFFIXES = ['.code-workspace'] as const
/** Top-level folders whose contents host tools act on without asking (walked to {@link MAX_DIR_ENTRIES}). */
export const HOST_EXEC_DIRS = ['.vscode', '.idea', '.husky', '.devcontainer', '.claude', '.cortex', '.git/hooks', '.git/info'] as const
/** Files inside each gitdir (top-level, nested, submodule, worktree) that make git run code. */
const GITDIR_FILES = ['config', 'config.worktree', 'commondir']
/** Names that matter at any depth of the tree. */
const NESTED_NAMES = new Set(['.git', '.envrc'])
/** Most entries walked per watched folder. */
const MAX_DIR_ENTRIES = 2000
/** Most directory entries the nested search visits before giving up (then the result says `incomplete`). */
export const MAX_TREE_ENTRIES = 200_000

/** Repository-relative path → fingerprint. */
export interface HostExecSnapshot {
  entries: Map<string, string>
  /** True when the nested search stopped at {@link MAX_TREE_ENTRIES} or its deadline. */
  incomplete: boolean
}

/** One change found by {@link diffHostExec}. */
export interface HostExecChange {
  path: string
  change: 'added' | 'modified' | 'removed'
}


/**
 * Record `rel` (and, for a folder, what is below it, bounded) into `out`. A symlink is recorded as
 * its text AND, when it resolves inside the repository, as what it names (a host tool reads the
 * target, and the guest can write it without touching the link): a file's content joins the link's
 * fingerprint, a folder is walked with its entries listed under `rel/`.
 */
async function record(root: string, rel: string, out: Map<string, string>, walk: boolean): Promise<void> {
  let abs = join(root, rel)
  const st = await lstat(abs)
  if (!st) return
  out.set(rel, await fingerprint(abs, st, rel))
  let isDir = st.isDirectory()
  if (st.isSymbolicLink()) {
    const real = await fsp.realpath(abs).catch(() => null)
    const realRoot = await fsp.realpath(root).catch(() => root)
    const rst = real && real.startsWith(realRoot + sep) ? await lstat(real) : null
    if (!real || !rst) return // dangling, or outside the repository: the guest cannot write there
    if (!rst.isDirectory()) out.set(rel, `${out.get(rel)}|${await fingerprint(real, rst, rel)}`)
    abs = real
    isDir = rst.isDirectory()
  }
  if (!walk || !isDir) return
  const queue: Array<[string, string]> = [[abs, rel]]
  let seen = 0
  while (queue.length && seen < MAX_DIR_ENTRIES) {
    const [dirAbs, dir] = queue.shift() as [string, string]
    const list = await fsp.readdir(dirAbs, { withFileTypes: true }).catch(() => [])
    for (const e of list) {
      if (++seen > MAX_DIR_ENTRIES) break
      const r = `${dir}/${e.name}`
      const s = await lstat(join(dirAbs, e.name))
      if (!s) continue
      out.set(r, await fingerprint(join(dirAbs, e.name), s, r))
      if (s.isDirectory()) queue.push([join(dirAbs, e.name), r])
    }
  }
}

/** Record a gitdir's control files (config, commondir, hooks) under `rel`. */
async function recordGitdir(root: string, rel: string, out: Map<string, string>): Promise<void> {
  for (const f of GITDIR_FILES) await record(root, `${rel}/${f}`, out, false)
  await record(root, `${rel}/hooks`, out, true)
  for (const group of ['modules', 'worktrees']) {
    const list = await fsp.readdir(join(root, rel, group), { withFileTypes: true }).catch(() => [])
    for (const e of list) if (e.isDirectory()) await recordGitdir(root, `${rel}/${group}/${e.name}`, out)
  }
}

/**
 * Fingerprint the host-run files of the repository at `root` (absolute host path).
 * @param deadlineMs how long the nested `.git`/`.envrc` search may take (ms); default 1500
 */
export async function snapshotHostExec(root: string, deadlineMs = 1500): Promise<HostExecSnapshot> {
  const entries = new Map<string, string>()
  for (const f of HOST_EXEC_FILES) await record(root, f, entries, false)
  const top = await fsp.readdir(root).catch(() => [] as string[])
  for (const f of top) if (HOST_EXEC_SUFFIXES.some((x) => f.endsWith(x))) await record(root, f, entries, false)
  await record(root, 'package.json', entries, false)
  for (const d of HOST_EXEC_DIRS) await record(root, d, entries, true)
  const dotGit = await lstat(join(root, '.git'))
  // a `.git` pointer file is recorded; a folder by its control files (an empty placeholder has none)
  if (dotGit && !dotGit.isDirectory()) await record(root, '.git', entries, false)
  if (dotGit?.isDirectory()) await recordGitdir(root, '.git', entries)
  // nested repositories and .envrc files anywhere below the root
  const until = Date.now() + deadlineMs
  let visited = 0
  let incomplete = false
  const queue = ['']
  while (queue.length) {
    if (visited > MAX_TREE_ENTRIES || Date.now() > until) {
      incomplete = true
      break
    }
    // a few folders at a time: the walk is I/O-bound
    const batch = queue.splice(0, 16)
    const lists = await Promise.all(batch.map((dir) => fsp.readdir(join(root, dir), { withFileTypes: true }).catch(() => [])))
    for (const [i, list] of lists.entries()) {
      const dir = batch[i] as string
      for (const e of list) {
        visited++
        const rel = dir ? `${dir}/${e.name}` : e.name
        if (dir && NESTED_NAMES.has(e.name)) {
          await record(root, rel, entries, false)
          if (e.name === '.git' && e.isDirectory()) await recordGitdir(root, rel, entries)
        }
        if (e.isDirectory() && e.name !== '.git') queue.push(rel)
      }
    }
  }
  return { entries, incomplete }
}

/** What differs between two snapshots, sorted by path. */
export function diffHostExec(before: HostExecSnapshot, after: HostExecSnapshot): HostExecChange[] {
  const changes: HostExecChange[] = []
  for (const [path, fp] of after.entries) {
    const old = before.entries.get(path)
    if (old === undefined) changes.push({ path, change: 'added' })
    else if (old !== fp) changes.push({ path, change: 'modified' })
  }
  for (const path of before.entries.keys()) if (!after.entries.has(path)) changes.push({ path, change: 'removed' })
  return changes.sort((a, b) => a.path.localeCompare(b.path))
}

/** The user-facing warning for `changes` (see the `host_exec_warning` event). */
export function hostExecWarning(changes: readonly HostExecChange[], incomplete = false): { paths: string[]; message: string } {
  const paths = changes.map((c) => `${c.path} (${c.change})`)
  const message =
    `this turn changed ${changes.length === 1 ? 'a file' : `${changes.length} files`} that tools on your machine can run without asking ` +
    '(git, direnv, your editor or IDE, npm/yarn, git hooks). Review the changes before running git, opening the folder in an editor or installing dependencies on the host' +
    (incomplete ? '; the repository was too large to search every folder for nested .git and .envrc' : '') +
    '.'
  return { paths, message }
}

/**
 * Start watching `root` for one turn: resolves once the start snapshot is taken; call the returned
 * `finish()` at the turn's end for the warning to emit (null when nothing changed). Never rejects:
 * an unreadable tree only makes the snapshot smaller.
 */
export async function watchHostExec(root: string): Promise<{ finish(): Promise<{ paths: string[]; message: string } | null> }> {
  // an unsnapshottable tree is an empty, incomplete snapshot: the warning then says it may miss changes
  const before = await snapshotHostExec(root).catch(() => ({ entries: new Map<string, string>(), incomplete: true }))
  return {
    async finish() {
      // the repository folder vanished or became unreadable: nothing the host could run is there to warn about
      const after = await snapshotHostExec(root).catch(() => null)
      if (!after) return null
      const changes = diffHostExec(before, after)
      return changes.length ? hostExecWarning(changes, before.incomplete || after.incomplete) : null
    }
  }
}
