/**
 * Dependency volumes (issue 18 item 7, docs/adr/0042): a repository's dependency folders
 * (`node_modules`, `.venv`, `target`, …) live in named Docker volumes mounted over those paths in its
 * guests — the devcontainer pattern — so a Linux guest never runs a macOS host's native modules and
 * never leaves its own in the user's tree. One volume per repository, folder and content key (the
 * setup cache's key: recipe and lockfiles), owned by the repository owner's uid (a one-off `chown`
 * container Cortex runs, with CAP_CHOWN only, no network, nothing of the repository mounted),
 * labelled for `cortex guest prune`. The setting is per repository: `auto` (on where the host is not
 * Linux), `on`, `off`.
 */
import { createHash } from 'node:crypto'
import { chownSync, lstatSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { CortexError } from '../../shared/errors'
import { raceAbort } from './abortable'
import { statusOf, withTimeout } from './docker-util'

/** The setting: `auto` = on where the host is not Linux, off on Linux. */
export type DependencyVolumesMode = 'auto' | 'on' | 'off'
/** The values of {@link DependencyVolumesMode}, for parsers. */
export const DEPENDENCY_VOLUMES_MODES = ['auto', 'on', 'off'] as const
/** Env var overriding the setting for this process (`cortex run --dependency-volumes`). */
export const DEPENDENCY_VOLUMES_ENV = 'CORTEX_DEPENDENCY_VOLUMES'
/** Env var: a comma-separated list of repository-relative folders replacing {@link DEFAULT_DEPENDENCY_FOLDERS}. */
export const DEPENDENCY_FOLDERS_ENV = 'CORTEX_DEPENDENCY_FOLDERS'

/** Labels on a dependency volume: the repository's host path, the folder, the content key. */
export const LABEL_DEPS_REPO = 'dev.cortex.deps-repo'
export const LABEL_DEPS_FOLDER = 'dev.cortex.deps-folder'
export const LABEL_DEPS_KEY = 'dev.cortex.deps-key'

/** A dependency folder and the top-level files that say the repository uses it (empty: always). */
export interface DependencyFolder {
  /** Repository-relative folder (one component, or a relative path). */
  path: string
  /** Used only when one of these files is in the repository's top folder. */
  when: readonly string[]
}

/** Default folders: a folder is used when the repository has it, or a file that says it will. */
export const DEFAULT_DEPENDENCY_FOLDERS: readonly DependencyFolder[] = [
  { path: 'node_modules', when: ['package.json'] },
  { path: '.venv', when: ['pyproject.toml', 'requirements.txt', 'setup.py', 'Pipfile', 'uv.lock', 'poetry.lock'] },
  { path: 'target', when: ['Cargo.toml'] }
]

/** Longest the one-off chown container may take, created to removed (ms). */
const CHOWN_DEADLINE_MS = 60_000

/** Whether `mode` puts dependency folders in volumes on `platform`. */
export function dependencyVolumesApply(mode: DependencyVolumesMode, platform: NodeJS.Platform = process.platform): boolean {
  return mode === 'on' || (mode === 'auto' && platform !== 'linux')
}

/**
 * The folder list: {@link DEPENDENCY_FOLDERS_ENV} when set (each always used), else the defaults.
 * @throws CortexError('invalid_input') for an absolute path or one with `..`
 */
export function dependencyFolders(env: NodeJS.ProcessEnv = process.env): readonly DependencyFolder[] {
  const raw = env[DEPENDENCY_FOLDERS_ENV]
  if (raw === undefined || raw.trim() === '') return DEFAULT_DEPENDENCY_FOLDERS
  return raw.split(',').map((s) => s.trim()).filter(Boolean).map((p) => {
    const parts = p.split('/').filter((x) => x && x !== '.')
    if (p.startsWith('/') || parts.includes('..') || !parts.length) throw new CortexError('invalid_input', `${DEPENDENCY_FOLDERS_ENV}: '${p}' must be a folder inside the repository`)
    return { path: parts.join('/'), when: [] }
  })
}

/** Volume name of `folder` of `repo` for content `key`: `cortex-deps-<12 hex of the repository>-<folder>-<12 hex of the key>`. */
export function dependencyVolumeName(repo: string, folder: string, key: string): string {
  const h = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 12)
  return `cortex-deps-${h(repo)}-${folder.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[._-]+/, '')}-${h(key)}`
}

/** A volume to mount: its name, the guest path (the folder's own path), the folder. */
export interface DependencyVolume {
  name: string
  target: string
  folder: string
}

/** The engine calls made here (a dockerode client satisfies it). */
export interface VolumeEngine {
  getVolume(name: string): { inspect(): Promise<unknown>; remove(): Promise<unknown> }
  createVolume(opts: { Name: string; Labels: Record<string, string> }): Promise<unknown>
  createContainer(spec: Record<string, unknown>): Promise<{ start(): Promise<unknown>; wait(): Promise<{ StatusCode: number }>; remove(opts: { force: boolean }): Promise<unknown> }>
}

/**
 * The dependency volumes of `repo` for content `key`, without touching anything: the folders the
 * repository uses (its own folder, or a file saying it will) whose host path is a folder or absent.
 * A folder that is a link or a file on the host is left out with a note (never mounted through).
 */
export function plannedDependencyVolumes(repo: string, key: string, folders: readonly DependencyFolder[] = dependencyFolders()): { volumes: DependencyVolume[]; notes: string[] } {
  const volumes: DependencyVolume[] = []
  const notes: string[] = []
  for (const f of folders) {
    const target = join(repo, f.path)
    const st = lstatSync(target, { throwIfNoEntry: false })
    if (!st && f.when.length && !f.when.some((w) => lstatSync(join(repo, w), { throwIfNoEntry: false }))) continue
    if (st && !st.isDirectory()) {
      notes.push(`${f.path} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'} on the host: not put in a volume`)
      continue
    }
    volumes.push({ name: dependencyVolumeName(repo, f.path, key), target, folder: f.path })
  }
  return { volumes, notes }
}

/** Whether every volume of `volumes` exists on the engine. */
export async function volumesExist(docker: VolumeEngine, volumes: readonly DependencyVolume[]): Promise<boolean> {
  for (const v of volumes) {
    try {
      await docker.getVolume(v.name).inspect()
    } catch (err) {
      if (statusOf(err) === 404) return false
      throw err
    }
  }
  return true
}

/**
 * Make `volumes` ready: the mount point created on the host when absent (owned by the repository's
 * owner, so Docker does not create it as root), each volume created when missing, labelled, and its
 * root given to `owner` by a one-off container from `image` (root with CAP_CHOWN only, no network,
 * read-only root, nothing but the volume mounted; removed after). A failed chown removes the volume.
 * Stop ends the wait at once (the chown finishes on its own within its deadline).
 * @throws CortexError `guest_failed` naming the volume; AbortError when `signal` aborts
 */
export async function ensureDependencyVolumes(
  docker: VolumeEngine, repo: string, key: string, volumes: readonly DependencyVolume[], owner: { uid: number; gid: number }, image: string, signal?: AbortSignal
): Promise<void> {
  for (const v of volumes) {
    if (!lstatSync(v.target, { throwIfNoEntry: false })) {
      mkdirSync(v.target, { recursive: true, mode: 0o755 })
      if (process.getuid?.() === 0) chownSync(v.target, owner.uid, owner.gid)
    }
    try {
      await raceAbort(docker.getVolume(v.name).inspect(), signal)
      continue
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err
      if (statusOf(err) !== 404) throw new CortexError('docker_unavailable', `Docker engine error inspecting volume ${v.name}: ${(err as Error).message}`, { cause: err })
    }
    await raceAbort(docker.createVolume({ Name: v.name, Labels: { [LABEL_DEPS_REPO]: repo, [LABEL_DEPS_FOLDER]: v.folder, [LABEL_DEPS_KEY]: key } }), signal, () => {
      // created after a Stop: not chowned, so not kept
      void docker.getVolume(v.name).remove().catch(() => undefined)
    })
    // a failed chown removes the volume, also when no one waits any more (Stop): a root-owned volume is never left for the next start
    const chown = chownVolume(docker, v.name, owner, image).catch(async (err: unknown) => {
      await docker.getVolume(v.name).remove().catch(() => undefined)
      throw err
    })
    chown.catch(() => undefined)
    try {
      await raceAbort(withTimeout(chown, CHOWN_DEADLINE_MS, `the volume's owner was not set within ${CHOWN_DEADLINE_MS / 1000} s`), signal)
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err
      throw new CortexError('guest_failed', `cannot prepare the dependency volume ${v.name} for ${v.folder}: ${(err as Error).message}`, { cause: err })
    }
  }
}

async function chownVolume(docker: VolumeEngine, name: string, owner: { uid: number; gid: number }, image: string): Promise<void> {
  const c = await docker.createContainer({
    Image: image, Entrypoint: ['chown'], Cmd: [`${owner.uid}:${owner.gid}`, '/v'], User: '0:0', Labels: { 'dev.cortex.deps-chown': '1' },
    HostConfig: { NetworkMode: 'none', ReadonlyRootfs: true, CapDrop: ['ALL'], CapAdd: ['CHOWN'], SecurityOpt: ['no-new-privileges'], Mounts: [{ Type: 'volume', Source: name, Target: '/v' }] }
  })
  try {
    await c.start()
    const r = await c.wait()
    if (r.StatusCode !== 0) throw new Error(`chown exited ${r.StatusCode}`)
  } finally {
    await c.remove({ force: true }).catch(() => undefined)
  }
}

/**
 * The dependency volumes a guest of `repo` mounts under `mode` (none when it does not apply), made
 * ready ({@link ensureDependencyVolumes}); the content key is `contentKey` (the image a session
 * starts from, or the setup cache's tag) with the repository's lockfiles' hash. Says which folders
 * are in volumes, and why, through `say`.
 * @throws as {@link ensureDependencyVolumes}
 */
export async function prepareDependencyVolumes(
  docker: VolumeEngine,
  a: { repo: string; mode: DependencyVolumesMode; contentKey: string; lockHash: string; owner: { uid: number; gid: number }; image: string; say: (line: string) => void; signal?: AbortSignal }
): Promise<DependencyVolume[]> {
  if (!dependencyVolumesApply(a.mode)) return []
  const key = `${a.contentKey}\0${a.lockHash}`
  const { volumes, notes } = plannedDependencyVolumes(a.repo, key)
  for (const n of notes) a.say(`dependency volumes: ${n}`)
  if (!volumes.length) return []
  await ensureDependencyVolumes(docker, a.repo, key, volumes, a.owner, a.image, a.signal)
  a.say(`dependency volumes (${a.mode === 'on' ? 'on for this repository' : `auto: the host is ${process.platform}`}): ${volumes.map((v) => v.folder).join(', ')} live in Docker volumes, not in the repository's tree`)
  return volumes
}

/** Whether the dependency volumes of `repo` for `contentKey` (see {@link prepareDependencyVolumes}) all exist; true when none apply. */
export async function dependencyVolumesPresent(docker: VolumeEngine, a: { repo: string; mode: DependencyVolumesMode; contentKey: string; lockHash: string }): Promise<boolean> {
  if (!dependencyVolumesApply(a.mode)) return true
  return volumesExist(docker, plannedDependencyVolumes(a.repo, `${a.contentKey}\0${a.lockHash}`).volumes)
}

/**
 * The mode for this process: {@link DEPENDENCY_VOLUMES_ENV} when set (the CLI flag), else `setting`.
 * @throws CortexError('invalid_input') for a value other than auto, on, off
 */
export function dependencyVolumesModeOf(setting: DependencyVolumesMode = 'auto', env: NodeJS.ProcessEnv = process.env): DependencyVolumesMode {
  const raw = env[DEPENDENCY_VOLUMES_ENV]?.trim()
  if (!raw) return setting
  if (!(DEPENDENCY_VOLUMES_MODES as readonly string[]).includes(raw)) throw new CortexError('invalid_input', `${DEPENDENCY_VOLUMES_ENV}="${raw}" must be auto, on or off`)
  return raw as DependencyVolumesMode
}
