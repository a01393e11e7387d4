/**
 * Helpers of the Docker guest provider: error wording, status codes, log demuxing, timeouts,
 * build-progress throttling, and the orphan reaper (over the few engine calls it needs, so this
 * file has no dockerode import: only docker-guest.ts has one).
 */
import { rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { CortexError } from '../../shared/errors'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import { LABEL_MANAGED, LABEL_SESSION } from './container-spec'
import type { GuestProgress } from './guest'
import { LABEL_OWNER, ownerAlive, ownerTag } from './owner'
import { isGuestEtcDir, removeStaleGuestEtcDirs, removeStaleSpareEtcDirs } from './paths'
import { removeStaleBuildLocks } from './build-lock'
import { raceDeadline } from '../../shared/deadline'
import { claimedHere, isSpare, releaseClaim, removeStaleClaims, SPARE_MANAGED, spareVerdict } from './spare-guests'

/** Where the Docker engine is looked for, for error messages. */
export function dockerWhere(): string {
  return process.env.DOCKER_HOST ? `DOCKER_HOST=${process.env.DOCKER_HOST}` : 'the default socket (DOCKER_HOST is not set)'
}

/** HTTP status of a dockerode error, if any. */
export function statusOf(err: unknown): number | undefined {
  return (err as { statusCode?: number } | null)?.statusCode
}

/** Split Docker's multiplexed (non-TTY) log buffer into text; falls back to raw UTF-8. */
export function demuxLogs(buf: Buffer): string {
  const parts: Buffer[] = []
  let i = 0
  while (i + 8 <= buf.length && (buf[i] === 1 || buf[i] === 2) && buf[i + 1] === 0) {
    const len = buf.readUInt32BE(i + 4)
    parts.push(buf.subarray(i + 8, i + 8 + len))
    i += 8 + len
  }
  return (i === 0 ? buf : Buffer.concat(parts)).toString('utf8')
}

/** Reject with `message` when `p` has not settled within `ms` milliseconds. */
export async function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  const r = await raceDeadline(p, { ms })
  if (r.kind === 'value') return r.value
  throw new Error(message)
}

/**
 * Throttle image-build output for `progress('building_image', line)`: `==>` step lines always
 * pass, other lines at most one per 500 ms (`now` is injectable for tests, ms).
 */
export function throttleBuildProgress(progress: GuestProgress, now: () => number = Date.now): (line: string) => void {
  let last = -Infinity
  return (line) => {
    const t = now()
    if (!line.startsWith('==>') && t - last < 500) return
    last = t
    progress('building_image', line)
  }
}

/** A container as the engine lists it: the fields the reaper reads (dockerode's ContainerInfo has them). */
export interface ListedContainer {
  Id: string
  Labels?: Record<string, string>
  Mounts?: ReadonlyArray<{ Destination: string; Source: string }>
}

/** The engine calls the reaper makes (a dockerode client satisfies it). */
export interface ReaperEngine {
  listContainers(opts: { all: boolean; filters: { label: string[] } }): Promise<ListedContainer[]>
  getContainer(id: string): { remove(opts: { force: boolean; v?: boolean }): Promise<unknown> }
}

/** Options of {@link reapOrphans}. */
export interface ReapOptions {
  /** Narrow the sweep to containers also carrying these labels (e.g. one test run's). */
  labels?: Record<string, string>
  /** Container ids never to remove (e.g. a warm pool's). */
  keep?: Iterable<string>
  /** Spare every guest of this process (a sweep that runs while this process starts guests). */
  othersOnly?: boolean
  /** Where removals and skipped steps are logged (default nowhere). */
  logger?: Logger
}

/**
 * Remove containers labelled {@link LABEL_MANAGED}=1 (or spare guests: see spare-guests.ts spareVerdict) whose {@link LABEL_SESSION} is not in
 * `liveSessionIds` (running or not) and whose owner process ({@link LABEL_OWNER}) is this one or
 * is gone from this machine: guests of other live Cortex processes are never removed, nor
 * unlabelled containers. With each removed container goes its passwd folder; then the passwd
 * folders of dead processes that no container mounts are removed too (paths.ts
 * removeStaleGuestEtcDirs). A container that cannot be removed is logged and the sweep goes on
 * with the others (one stuck container never shields the rest). Resolves with the removed ids.
 * @throws CortexError `docker_unavailable` when the engine does not answer the first listing
 */
export async function reapOrphans(docker: ReaperEngine, liveSessionIds: Iterable<string>, opts: ReapOptions = {}): Promise<string[]> {
  const log = opts.logger ?? NOOP_LOGGER
  const live = new Set(liveSessionIds)
  const keep = new Set(opts.keep ?? [])
  // the key alone: spares carry dev.cortex.managed=spare (ADR 0040)
  const label = [LABEL_MANAGED, ...Object.entries(opts.labels ?? {}).map(([k, v]) => `${k}=${v}`)]
  let list: ListedContainer[]
  try {
    list = await docker.listContainers({ all: true, filters: { label } })
  } catch (err) {
    throw new CortexError('docker_unavailable', `no Docker engine answered at ${dockerWhere()} (${(err as Error).message})`, { cause: err })
  }
  const removed: string[] = []
  const gone = new Set<string>()
  for (const c of list) {
    if (!c.Labels || !isManaged(c) || keep.has(c.Id)) continue
    const session = c.Labels[LABEL_SESSION]
    // a spare (ADR 0040) has no owner: kept while valid or claimed by a live process, removed once expired or abandoned
    const spare = isSpare(c) ? spareVerdict(c) : undefined
    if (spare === 'valid' || spare === 'claimed') continue
    if (!spare && session !== undefined && live.has(session)) continue
    // a guest of another live Cortex process (a second CLI, the desktop app) is not an orphan
    const owner = c.Labels[LABEL_OWNER]
    if (owner !== undefined && owner !== ownerTag() && ownerAlive(owner)) continue
    if (opts.othersOnly && owner === ownerTag()) continue
    try {
      await docker.getContainer(c.Id).remove({ force: true, v: true })
      removed.push(c.Id)
    } catch (err) {
      if (statusOf(err) === 409) continue // removal already in progress: the sweep doing it removes the folder
      if (statusOf(err) !== 404) {
        log.warn('could not remove an orphan guest; the next sweep retries it', { containerId: c.Id.slice(0, 12), session, owner, ...errorFields(err) })
        continue
      }
    }
    gone.add(c.Id)
    if (spare) releaseClaim(c.Id)
    const etc = guestEtcDirOf(c)
    if (etc) rmSync(etc, { recursive: true, force: true })
    log.info(spare ? `removed ${spare} spare guest` : 'removed orphan guest', { containerId: c.Id.slice(0, 12), session, owner, etc })
  }
  try {
    const all = (await docker.listContainers({ all: true, filters: { label: [LABEL_MANAGED] } })).filter(isManaged)
    removeStaleClaims(new Set(all.filter((c) => !gone.has(c.Id)).map((c) => c.Id)))
    const inUse = new Set(all.filter((c) => !gone.has(c.Id)).map(guestEtcDirOf).filter((d): d is string => d !== undefined))
    const stale = [...removeStaleGuestEtcDirs(inUse), ...removeStaleSpareEtcDirs(inUse)]
    if (stale.length) log.info('removed passwd folders of dead processes', { folders: stale })
    const locks = removeStaleBuildLocks()
    if (locks.length) log.info('removed image build locks of dead processes', { folders: locks })
  } catch (err) {
    log.debug('passwd folders of dead processes not swept: the container list failed', errorFields(err))
  }
  return removed
}

/** Whether listed container `c` is one of ours: {@link LABEL_MANAGED} `1`, or `spare` for a spare guest. */
function isManaged(c: ListedContainer): boolean {
  const v = c.Labels?.[LABEL_MANAGED]
  return v === '1' || v === SPARE_MANAGED
}

/** The host folder of a guest's generated passwd file (its `/etc/passwd` bind), when it is one of ours. */
export function guestEtcDirOf(c: ListedContainer): string | undefined {
  const source = c.Mounts?.find((m) => m.Destination === '/etc/passwd')?.Source
  const dir = source ? dirname(source) : undefined
  return dir && isGuestEtcDir(dir) ? dir : undefined
}

/** The engine calls {@link removeOwned} makes (a dockerode client satisfies it). */
export interface OwnedEngine {
  listContainers(opts: { all: boolean; filters: { label: string[] } }): Promise<ListedContainer[]>
  getContainer(id: string): { remove(opts: { force: boolean; v?: boolean }): Promise<unknown>; inspect(): Promise<unknown> }
}

/**
 * Force-remove every guest container this process created (label {@link LABEL_OWNER} = this
 * process's {@link ownerTag}) and every spare it claimed, running or not, in parallel, giving up after `deadlineMs`. A
 * removal already under way (409) is waited for until the container is gone. Resolves with the ids
 * removed; never rejects.
 */
export async function removeOwned(docker: OwnedEngine, deadlineMs: number): Promise<string[]> {
  const removed: string[] = []
  const work = (async () => {
    const list = await docker.listContainers({ all: true, filters: { label: [`${LABEL_MANAGED}=1`, `${LABEL_OWNER}=${ownerTag()}`] } })
    // the spares this process claimed carry no owner label (ADR 0040)
    const ids = [...list.map((c) => c.Id), ...claimedHere]
    await Promise.all(
      ids.map(async (id) => {
        const c = { Id: id }
        const container = docker.getContainer(c.Id)
        try {
          await container.remove({ force: true, v: true })
          removed.push(c.Id)
        } catch (err) {
          if (statusOf(err) === 404) removed.push(c.Id)
          if (statusOf(err) !== 409) return
          // 409: a removal is already under way (e.g. the session's close): wait until it is gone
          const until = Date.now() + deadlineMs
          while (Date.now() < until && (await container.inspect().then(() => true, (e: unknown) => statusOf(e) !== 404))) await new Promise((r) => setTimeout(r, 50))
          removed.push(c.Id)
        }
      })
    )
  })()
  // past the deadline the exit goes on; what is left is the next start's sweep (logged by callers)
  await withTimeout(work, deadlineMs, 'deadline').catch(() => undefined)
  return removed
}
