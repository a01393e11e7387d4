/**
 * Locating files the guest needs on the host: the package root (which holds resources/guest/ and
 * out/guest-agent/), from source (vitest), the built CLI (out/cli/) or the Electron main (out/main/),
 * and the roots of the running packages no repository may hold;
 * and the per-guest passwd folders in the OS temp folder (named with their owner's pid) with the
 * sweep that removes those of dead processes.
 */
import { existsSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'

/** Marker file that identifies the package root. */
const MARKER = join('resources', 'guest', 'build-image.sh')

function walkUp(start: string): string | undefined {
  let dir = resolve(start)
  for (;;) {
    if (existsSync(join(dir, MARKER))) return dir
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/**
 * The package root: `CORTEX_ROOT` if set, else the first ancestor holding resources/guest/build-image.sh
 * of this module's directory (CJS builds), of the entry script (process.argv[1], also through
 * symlinks) or of the working directory.
 * @throws Error when none is found.
 */
export function packageRoot(): string {
  if (process.env.CORTEX_ROOT) return resolve(process.env.CORTEX_ROOT)
  const starts = [...codeStarts(), process.cwd()]
  for (const s of starts) {
    const root = walkUp(s)
    if (root) return root
  }
  throw new Error(`cannot find the Cortex package root (no ${MARKER} above ${starts.join(', ')}); set CORTEX_ROOT`)
}

/** Where the running code is: this module's directory (CJS builds) and the entry script's (process.argv[1], also through symlinks). */
function codeStarts(): string[] {
  const starts: string[] = []
  if (typeof __dirname === 'string') starts.push(__dirname)
  if (process.argv[1]) {
    starts.push(dirname(process.argv[1]))
    try {
      starts.push(dirname(realpathSync(process.argv[1]))) // npm link / global bin symlinks
    } catch {
      // argv[1] is not a file (e.g. `node -e`).
    }
  }
  return starts
}

/**
 * The roots of the Cortex packages this process runs from, as real paths: `CORTEX_ROOT`, the
 * package above this module (CJS builds), the one above the entry script (through links), and
 * {@link packageRoot}'s (whose recipe and agent the guests use); beside a packaged app's `.asar`
 * root, its `.asar.unpacked` folder too. Their code, node_modules and guest recipe run on this
 * machine at the next start, so no guest may write them (session/repo-policy.ts).
 */
export function runningPackageRoots(): string[] {
  const starts = [...(process.env.CORTEX_ROOT ? [process.env.CORTEX_ROOT] : []), ...codeStarts()]
  const found = starts.map(walkUp)
  try {
    found.push(packageRoot()) // the recipe and agent Cortex uses, wherever it was found
  } catch {
    // no package root: nothing more to protect
  }
  const roots = new Set<string>()
  for (const root of found) {
    if (!root) continue
    let r = root
    try {
      r = realpathSync(root)
    } catch {
      // does not exist (yet): kept as found
    }
    for (const f of installFolders(r)) roots.add(f)
  }
  return [...roots]
}

/**
 * The folders of one install root: the root, and beside a packaged app's `.asar` archive its
 * `.asar.unpacked` folder (where the files that must be real files are: the guest recipe, the agent).
 */
export function installFolders(root: string): string[] {
  return root.endsWith('.asar') ? [root, `${root}.unpacked`] : [root]
}

/** Directory of the guest image recipe: `<root>/resources/guest`. */
export function guestRecipeDir(): string {
  return join(packageRoot(), 'resources', 'guest')
}

/** Default host path of the bundled guest agent: `<root>/out/guest-agent/agent.cjs` (may not exist yet). */
export function defaultAgentPath(): string {
  return join(packageRoot(), 'out', 'guest-agent', 'agent.cjs')
}

/** Name prefix of the per-guest folders holding its generated passwd and group files (in the OS temp folder). */
export const GUEST_ETC_PREFIX = 'cortex-guest-etc-'

/** mkdtemp prefix of a new passwd folder of process `pid`: `<tmp>/cortex-guest-etc-<pid>-` (the pid lets a sweep tell a dead owner's leftovers). */
export function guestEtcDirPrefix(pid: number = process.pid): string {
  return join(tmpdir(), `${GUEST_ETC_PREFIX}${pid}-`)
}

/**
 * Name prefix of a spare guest's passwd folder (ADR 0040): no owner pid (the spare outlives the
 * process that made it), and a name an older Cortex's sweep of dead owners' folders does not match.
 */
export const SPARE_ETC_PREFIX = 'cortex-spare-etc-'

/** mkdtemp prefix of a spare guest's passwd folder: `<tmp>/cortex-spare-etc-`. */
export function spareEtcDirPrefix(): string {
  return join(tmpdir(), SPARE_ETC_PREFIX)
}

/** Whether `path` is a guest passwd folder: directly in the OS temp folder and named {@link GUEST_ETC_PREFIX}… or {@link SPARE_ETC_PREFIX}…. */
export function isGuestEtcDir(path: string): boolean {
  const name = basename(path)
  return dirname(resolve(path)) === resolve(tmpdir()) && (name.startsWith(GUEST_ETC_PREFIX) || name.startsWith(SPARE_ETC_PREFIX))
}

/** A spare's passwd folder no container mounts is removed once older than this (ms): it may be one whose spare is being created. */
export const SPARE_ETC_DIR_STALE_MS = 60_000

/**
 * Remove spare passwd folders ({@link SPARE_ETC_PREFIX}…) that no container mounts (`inUse`) and
 * that are older than {@link SPARE_ETC_DIR_STALE_MS}. Returns the folders removed; never throws.
 */
export function removeStaleSpareEtcDirs(inUse: ReadonlySet<string>, now: number = Date.now()): string[] {
  let names: string[]
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(SPARE_ETC_PREFIX))
  } catch {
    return [] // no readable temp folder
  }
  const removed: string[] = []
  for (const name of names) {
    const dir = join(tmpdir(), name)
    if (inUse.has(dir) || now - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? now) < SPARE_ETC_DIR_STALE_MS) continue
    try {
      rmSync(dir, { recursive: true, force: true })
      removed.push(dir)
    } catch {
      // removed by another sweep, or not ours
    }
  }
  return removed
}

/** Whether a process with id `pid` exists on this machine (EPERM: it exists under another user). */
/** Whether process `pid` exists on this host (EPERM counts: it exists, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Age after which a passwd folder without an owner pid in its name (made before pids were recorded) counts as stale (ms). */
export const UNOWNED_ETC_DIR_STALE_MS = 60 * 60 * 1000

/**
 * Remove guest passwd folders left behind by processes that are gone: folders named
 * `cortex-guest-etc-<pid>-…` whose pid is not running (or, in the older `cortex-guest-etc-…` form
 * with no pid, older than {@link UNOWNED_ETC_DIR_STALE_MS}), unless a container still mounts them.
 * @param inUse absolute folders that existing guest containers mount (never removed)
 * @returns the folders removed. Never throws (an unreadable temp folder removes nothing).
 */
export function removeStaleGuestEtcDirs(inUse: ReadonlySet<string>, now: number = Date.now()): string[] {
  let names: string[]
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(GUEST_ETC_PREFIX))
  } catch {
    return [] // no readable temp folder: nothing of ours can be listed there
  }
  const removed: string[] = []
  for (const name of names) {
    const dir = join(tmpdir(), name)
    if (inUse.has(dir)) continue
    const pid = /^(\d+)-/.exec(name.slice(GUEST_ETC_PREFIX.length))?.[1]
    if (pid !== undefined ? pidAlive(Number(pid)) : now - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? now) < UNOWNED_ETC_DIR_STALE_MS) continue
    try {
      rmSync(dir, { recursive: true, force: true })
      removed.push(dir)
    } catch {
      // another sweep removed it first, or it is not ours to remove: either way nothing is lost
    }
  }
  return removed
}
