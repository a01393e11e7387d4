/**
 * Which folders may be opened as a repository. The guest runs as the folder's owner and can write
 * all of it, so `/`, system folders, the user's home folder itself (or anything holding it) and
 * every Cortex data folder (this process's, the default locations of the CLI and the desktop app,
 * and any folder that looks like one) — anything inside one or holding one — are refused: the
 * model could otherwise rewrite settings.json or approval rules. So is the running Cortex's own
 * installation (its code, node_modules, guest recipe), inside or holding it. A root-owned folder (the guest would run as uid 0) is
 * refused unless the user opts in (`--allow-root-repo`, or CORTEX_ALLOW_ROOT_REPO=1). A git directory
 * (a `.git`, a bare repository) or anything inside one is refused: the guest's git protection covers
 * `<repo>/.git`, not a gitdir opened as the repository itself. See
 * docs/adr/0006-guest-cannot-arm-the-host.md.
 */
import { existsSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { CortexError } from '../../shared/errors'
import { runningPackageRoots } from '../guest/paths'

/** Environment variable that allows root-owned repositories when set to `1` (or `true`). */
export const ALLOW_ROOT_REPO_ENV = 'CORTEX_ALLOW_ROOT_REPO'

/** Folders refused together with everything below them. */
export const SYSTEM_TREES = [
  '/etc', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/boot', '/proc', '/sys', '/dev', '/run',
  '/var/lib', '/var/log', '/var/cache', '/var/spool', '/var/mail', '/var/run', '/var/backups',
  '/System', '/Library', '/private/etc', '/private/var/db'
] as const
/** Folders refused themselves (their subfolders may be projects). */
export const SYSTEM_ROOTS = ['/', '/home', '/var', '/var/home', '/root', '/tmp', '/var/tmp', '/opt', '/srv', '/mnt', '/media', '/Users'] as const

/** Inputs of {@link checkRepoPolicy}. */
export interface RepoPolicyOptions {
  /** Cortex's data folder (CORTEX_HOME). */
  dataDir: string
  /** Allow a root-owned repository; default from {@link ALLOW_ROOT_REPO_ENV}. */
  allowRootRepo?: boolean
  /** The user's home folder; default os.homedir(). */
  home?: string
  /** Environment read for CORTEX_HOME, XDG_CONFIG_HOME and APPDATA; default process.env. */
  env?: NodeJS.ProcessEnv
  /** The running Cortex's package roots; default guest/paths.ts runningPackageRoots(). */
  installDirs?: string[]
}

/** Names the desktop app's data folder has under the platform's config folder (Electron userData). */
const APP_FOLDER_NAMES = ['cortex-code', 'Cortex Code'] as const

/**
 * Every Cortex data folder this machine's user may have, as absolute real paths (existing or not):
 * `dataDir`, CORTEX_HOME, the CLI's default `~/.cortex`, and the desktop app's userData folders
 * (`$XDG_CONFIG_HOME` or `~/.config`, `~/Library/Application Support`, `%APPDATA%`, each with
 * {@link APP_FOLDER_NAMES}).
 */
export function cortexDataFolders(opts: RepoPolicyOptions): string[] {
  const env = opts.env ?? process.env
  const home = opts.home ?? homedir()
  const configRoots = [env.XDG_CONFIG_HOME || join(home, '.config'), join(home, 'Library', 'Application Support'), ...(env.APPDATA ? [env.APPDATA] : [])]
  const all = [opts.dataDir, ...(env.CORTEX_HOME ? [env.CORTEX_HOME] : []), join(home, '.cortex'), ...configRoots.flatMap((root) => APP_FOLDER_NAMES.map((n) => join(root, n)))]
  return [...new Set(all.map((p) => real(resolve(p))))]
}

/**
 * Whether `dir` looks like a Cortex data folder wherever it is (another process's CORTEX_HOME):
 * a `sessions` folder beside the settings or a log the CLI or the app writes there.
 */
function looksLikeDataFolder(dir: string): boolean {
  return existsSync(join(dir, 'sessions')) && ['settings.json', 'cortex.log', join('logs', 'app.log')].some((f) => existsSync(join(dir, f)))
}

/** The nearest folder at or above `repo` that looks like a Cortex data folder, if any. */
function dataFolderAbove(repo: string): string | undefined {
  for (let dir = repo; ; dir = dirname(dir)) {
    if (looksLikeDataFolder(dir)) return dir
    if (dirname(dir) === dir) return undefined
  }
}

/** Whether `dir` is a git directory: a `.git` folder, or one holding HEAD, objects/ and refs/ (a bare repository, a submodule's or worktree's gitdir). */
function looksLikeGitDir(dir: string): boolean {
  return basename(dir) === '.git' || (existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects')) && existsSync(join(dir, 'refs')))
}

/** The nearest git directory at or above `repo`, if any (its hooks and config run on this machine at the next git command). */
function gitDirAbove(repo: string): string | undefined {
  for (let dir = repo; ; dir = dirname(dir)) {
    if (looksLikeGitDir(dir)) return dir
    if (dirname(dir) === dir) return undefined
  }
}

/** Outcome of an allowed repository: warnings to show the user (empty for an ordinary one). */
export interface RepoPolicyResult {
  warnings: string[]
}

function within(parent: string, p: string): boolean {
  const rel = relative(parent, p)
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`))
}

function real(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return resolve(p) // does not exist (yet): compared as written
  }
}

/** Whether the environment opts in to root-owned repositories. */
export function allowRootRepoFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env[ALLOW_ROOT_REPO_ENV] ?? '')
}

/**
 * Check that `repo` (an absolute real path of an existing folder) may be opened.
 * @returns warnings to show (a root-owned repository that was allowed)
 * @throws CortexError `repo_invalid` with a message saying why and what to do
 */
export function checkRepoPolicy(repo: string, opts: RepoPolicyOptions): RepoPolicyResult {
  const home = real(opts.home ?? homedir())
  const why = (reason: string, advice = 'Open a project folder instead.'): never => {
    throw new CortexError('repo_invalid', `${repo} cannot be opened as a repository: ${reason}. ${advice}`)
  }
  if ((SYSTEM_ROOTS as readonly string[]).includes(repo)) why('it is a system folder, not a project (the agent could change everything below it)')
  for (const t of SYSTEM_TREES) if (within(t, repo)) why(`it is inside the system folder ${t}`)
  if (home !== '/' && within(repo, home)) why(repo === home ? 'it is your home folder itself (it holds your shell, SSH and editor settings)' : `it contains your home folder ${home}`)
  const advice = 'Cortex keeps sessions, settings and approval rules there, which the agent could rewrite; open a project folder instead.'
  const own = real(opts.dataDir)
  for (const data of cortexDataFolders(opts)) {
    const which = data === own ? "Cortex's own data folder" : 'the Cortex data folder'
    if (within(data, repo) || within(repo, data)) why(`it ${within(data, repo) ? 'is inside' : 'contains'} ${which} ${data} (sessions and settings)`, advice)
  }
  // Cortex's own code: the guest would rewrite what runs on this machine at the next start
  // (compared without case where the file system usually ignores it: /users/me/CORTEX-code is the same folder there)
  const fold = process.platform === 'darwin' || process.platform === 'win32' ? (p: string): string => p.toLowerCase() : (p: string): string => p
  for (const install of opts.installDirs ?? runningPackageRoots()) {
    const inside = within(fold(install), fold(repo))
    if (inside || within(fold(repo), fold(install))) {
      why(`it ${inside ? 'is inside' : 'contains'} the Cortex installation that is running (${install}), whose code runs on this machine at the next start`, 'Open a copy of the project, or run Cortex from another folder.')
    }
  }
  const found = dataFolderAbove(repo)
  if (found !== undefined) why(`it ${found === repo ? 'is' : 'is inside'} a Cortex data folder (${found} holds sessions and settings)`, advice)
  // the guest protects <repo>/.git; a git directory opened as the repository itself would leave its hooks and config writable
  const gitDir = gitDirAbove(repo)
  if (gitDir !== undefined) {
    why(`it ${gitDir === repo ? 'is' : 'is inside'} a git directory (${gitDir}), whose hooks and config run on this machine at the next git command`, 'Open the project folder that holds it instead.')
  }
  const owner = statSync(repo).uid
  if (owner !== 0) return { warnings: [] }
  const what =
    'it is owned by root, so the agent runs as root (uid 0) in the guest and everything it writes there is owned by root on this machine'
  if (!(opts.allowRootRepo ?? allowRootRepoFromEnv())) {
    why(what, `Give the folder to your own user (chown -R) and open it again; if you really mean to run as root, start Cortex with --allow-root-repo (or ${ALLOW_ROOT_REPO_ENV}=1).`)
  }
  return { warnings: [`${repo} is root-owned and was opened because root-owned repositories are allowed: ${what}; setuid/setgid bits stay blocked.`] }
}
