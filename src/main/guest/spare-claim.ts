/**
 * Claiming and making spare guests (ADR 0040; the rules are in spare-guests.ts). A claim lists the
 * repository's spares (one engine call), removes the stale or mismatched ones it can claim, and for
 * a matching one: the claim file (O_EXCL), the watchdog told, an attach to the spare's main process
 * (the spare-mode agent) with stdin, the claim line, `ready` — so a claimed guest's first call costs
 * what a later call costs. The attach is the guest's lifeline from then on, as for any session
 * guest (ADR 0007): when this process ends, stdin closes, the agent and the container end and the
 * engine removes it. Making a spare is create + start, nothing attached. Structural engine types,
 * so docker-guest.ts stays the only dockerode importer.
 */
import { rmSync } from 'node:fs'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { SandboxPolicy } from '../../shared/sandbox'
import { LABEL_MANAGED, LABEL_REPO, LABEL_ROLE, passwdFiles, type GuestContainerSpec } from './container-spec'
import { DockerBackend, type BackendContainer, type BackendEngine } from './docker-backend'
import { guestEtcDirOf, withTimeout, type ListedContainer } from './docker-util'
import type { GitGuard } from './git-protect'
import type { Guest, GuestProgress } from './guest'
import { watchdogAlsoRemove } from './host-watchdog'
import { probeGuestImage } from './image'
import { raceAbort } from './abortable'
import { spareEtcDirPrefix } from './paths'
import { ManagedGuest } from './managed-guest'
import {
  agentBundleHash, CLAIM_MARGIN_MS, claimOwner, isSpare, LABEL_SPARE_EXPIRES, LABEL_SPARE_KEY, releaseClaim, spareKey, spareSpec, SPARE_MANAGED, SPARE_ROLE, tryClaim
} from './spare-guests'

/** What docker-guest.ts prepared before creating a container (see prepareGuest, guest-prepare.ts). */
export interface Prepared {
  /** Real absolute path of the repository, its `dev:ino`, and its owner. */
  repo: string
  repoIdentity: string
  uid: number
  gid: number
  policy: SandboxPolicy
  agentPath: string
  /** The image asked for, the built-in one, and the one containers start from. */
  image: string
  defaultImage: string
  runImage: string
  guard: GitGuard
  /** Let go of the git guard hold (idempotent). */
  release(): void
  checkpointStore?: string
  /** The create options for a passwd folder. */
  specFor(etc: { passwd: string; group: string }): GuestContainerSpec
  progress: GuestProgress
  /** Throws an AbortError when the start was aborted. */
  check(): void
}

/** A listed container with the fields a claim reads (dockerode's ContainerInfo has them). */
type ListedSpare = ListedContainer & { State?: string }

/** The engine calls a claim and a spare's creation make (a dockerode client satisfies it). */
export interface SpareEngine extends BackendEngine {
  listContainers(opts: { all: boolean; filters: { label: string[] } }): Promise<ListedSpare[]>
  getContainer(id: string): BackendContainer
  createContainer(spec: GuestContainerSpec): Promise<BackendContainer & { start(): Promise<unknown> }>
}

/** The line the spare-mode agent waits for (src/guest-agent/main.ts). */
const CLAIM_LINE = 'cortex-claim\n'
/** Longest wait for a claimed spare's `ready` (ms): a spare that does not answer at once is dropped for a cold start. */
const CLAIM_READY_MS = 5000
/** Longest wait for the list of spares (ms). */
const LIST_MS = 2000

/** The key a spare of `p` carries (spare-guests.ts spareKey). @throws Error when the agent bundle cannot be read */
export function keyOf(p: Prepared): string {
  return spareKey(p.specFor({ passwd: '', group: '' }), p.repoIdentity, agentBundleHash(p.agentPath))
}

async function listSpares(docker: SpareEngine, repo: string): Promise<ListedSpare[]> {
  return withTimeout(docker.listContainers({ all: true, filters: { label: [`${LABEL_ROLE}=${SPARE_ROLE}`, `${LABEL_MANAGED}=${SPARE_MANAGED}`, `${LABEL_REPO}=${repo}`] } }), LIST_MS, `Docker did not list the spare guests within ${LIST_MS} ms`)
    .then((all) => all.filter(isSpare))
}

/** Whether listed spare `c` can serve key `key` now (running, same key, not about to expire). */
function usable(c: ListedSpare, key: string, now: number): boolean {
  return c.State === 'running' && c.Labels?.[LABEL_SPARE_KEY] === key && Number(c.Labels[LABEL_SPARE_EXPIRES]) > now + CLAIM_MARGIN_MS
}

/** Remove a spare this process claimed (in the background), with its passwd folder and claim. */
function discard(docker: SpareEngine, c: ListedSpare, log: Logger, why: string): void {
  log.info(`spare guest removed: ${why}`, { containerId: c.Id.slice(0, 12) })
  void docker
    .getContainer(c.Id)
    .remove({ force: true })
    .catch((err: unknown) => log.debug('could not remove a spare guest; the sweep will', { containerId: c.Id.slice(0, 12), ...errorFields(err) }))
    .finally(() => {
      const etc = guestEtcDirOf(c)
      if (etc) rmSync(etc, { recursive: true, force: true })
      releaseClaim(c.Id)
    })
}

/**
 * Claim a spare guest matching `p` and connect to its agent. Resolves with the guest, or undefined
 * when none matches or the matching ones fail (each is then removed; the caller starts a cold
 * guest). Stale or mismatched spares of the repository that nobody claimed are removed, never used.
 * Rejects only with an AbortError when `opts.signal` aborts (a claimed spare is then removed).
 */
export async function claimSpare(
  docker: SpareEngine,
  p: Prepared,
  opts: { readyTimeoutMs: number; placeholders: Set<string>; logger?: Logger; signal?: AbortSignal }
): Promise<Guest | undefined> {
  const log = opts.logger ?? NOOP_LOGGER
  let list: ListedSpare[]
  let key: string
  try {
    key = keyOf(p)
    list = await raceAbort(listSpares(docker, p.repo), opts.signal)
  } catch (err) {
    p.check()
    log.debug('no spare guest looked for', errorFields(err))
    return undefined
  }
  const now = Date.now()
  for (const c of list) {
    if (claimOwner(c.Id) !== undefined || !tryClaim(c.Id)) continue // another process's (or being claimed)
    const etcDir = guestEtcDirOf(c)
    if (!usable(c, key, now) || !etcDir) {
      discard(docker, c, log, c.Labels?.[LABEL_SPARE_KEY] === key ? 'expired or not running' : 'made for another image, policy, repository folder or agent')
      continue
    }
    watchdogAlsoRemove(c.Id)
    const container = docker.getContainer(c.Id)
    const backend = new DockerBackend(docker, container, etcDir, opts.readyTimeoutMs, log, opts.placeholders, () => releaseClaim(c.Id))
    try {
      const main = await raceAbort(backend.attachMain(), opts.signal)
      main.write(CLAIM_LINE)
      const client = await backend.connectMain(main, opts.signal, CLAIM_READY_MS)
      const guest = new ManagedGuest(c.Id, p.repo, p.policy, backend, client)
      if (p.image !== p.defaultImage) await probeGuestImage(guest, p.image, p.repo, log)
      p.check()
      log.info('spare guest claimed', { containerId: c.Id.slice(0, 12), repo: p.repo, sandbox: p.policy })
      return guest
    } catch (err) {
      await backend.remove().catch((rmErr: unknown) => log.debug('could not remove a spare guest that failed its claim', { containerId: c.Id.slice(0, 12), ...errorFields(rmErr) }))
      p.check()
      log.info('a claimed spare guest did not answer; starting a new guest', { containerId: c.Id.slice(0, 12), ...errorFields(err) })
    }
  }
  return undefined
}

/**
 * Create and start ONE spare for `p` (its own passwd folder; labels, AutoRemove and the spare-mode
 * agent from spareSpec), unless a usable unclaimed spare with the same key exists, or the git
 * guard had to make the repository's root `.git` placeholder (an empty folder the spare would leave
 * in the user's folder for its whole lifetime). Resolves once started. Rejects with the engine's
 * error (the half-made container is then removed when possible).
 */
export async function makeSpare(docker: SpareEngine, p: Prepared, opts: { ttlMs: number; logger?: Logger }): Promise<void> {
  const log = opts.logger ?? NOOP_LOGGER
  if (p.guard.createdEmptyDirs.some((d) => d === `${p.repo}/.git`)) {
    log.info('no spare guest left: the folder has no .git of its own', { repo: p.repo })
    return
  }
  const key = keyOf(p)
  const now = Date.now()
  if ((await listSpares(docker, p.repo)).some((c) => usable(c, key, now + opts.ttlMs / 2) && claimOwner(c.Id) === undefined)) {
    log.debug('a spare guest is there already', { repo: p.repo })
    return
  }
  const etc = passwdFiles(p.uid, p.gid, spareEtcDirPrefix())
  let container: (BackendContainer & { start(): Promise<unknown> }) | undefined
  try {
    container = await docker.createContainer(spareSpec(p.specFor(etc), key, opts.ttlMs, now))
    await container.start()
    log.info('spare guest left', { containerId: container.id.slice(0, 12), repo: p.repo, sandbox: p.policy, ttlMs: opts.ttlMs })
  } catch (err) {
    await container?.remove({ force: true }).catch(() => undefined) // gone already, or the sweep's
    rmSync(etc.dir, { recursive: true, force: true })
    throw err
  }
}
