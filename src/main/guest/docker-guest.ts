/**
 * Docker guests (the only dockerode importer): one hardened container per session (create options
 * in container-spec.ts, the steps before creating it in guest-prepare.ts) with the repository
 * bind-mounted at the same absolute path, running as the repository owner's uid:gid, and ONE
 * long-lived exec of the guest agent speaking the line protocol, restarted by {@link ManagedGuest}
 * when it dies. Honours DOCKER_HOST (unix:// or tcp://) through dockerode; never names a socket
 * itself. Also reaps orphan containers by label.
 */
import { lstatSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Dockerode from 'dockerode'
import { CortexError } from '../../shared/errors'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { AgentClient } from './agent-client'
import { passwdFiles } from './container-spec'
import { claimSpare, makeSpare } from './spare-claim'
import { spareTtlMs } from './spare-guests'
import type { Guest, GuestProgress, GuestProvider, GuestStartOptions, StoreLease } from './guest'
import { guardHeld, removeGuardPlaceholders } from './git-protect'
import { CHECKPOINT_STORE_IN_GUEST, checkpointStoreName } from './checkpoint-mount'
import { CheckpointGuests } from './checkpoint-guests'
import { probeGuestImage } from './image'
import { raceAbort } from './abortable'
import { ManagedGuest } from './managed-guest'
import type { PreparedEnvironment } from './environment/setup-step'
import { GuestEnvironments } from './environment/guest-environments'
import type { EnvironmentRun, GuestProviderSettings } from './docker-guest-options'
import { DockerBackend, REMOVE_DEADLINE_MS } from './docker-backend'
import { DOCKER_PING_TIMEOUT_MS, prepareGuest, type PrepareDeps } from './guest-prepare'
import { reapOrphans, removeOwned, throttleBuildProgress, withTimeout, type ReapOptions } from './docker-util'

export { DOCKER_PING_TIMEOUT_MS, REMOVE_DEADLINE_MS, throttleBuildProgress }
export { REQUIRED_GUEST_COMMANDS } from './image'
export { AGENT_IN_GUEST, GUEST_HOME, LABEL_MANAGED, LABEL_REPO, LABEL_SANDBOX, LABEL_SESSION } from './container-spec'
export type { GuestLimits } from './container-spec'

/** Options of {@link DockerGuestProvider}: its engine client, and the settings of docker-guest-options.ts. */
export interface DockerGuestProviderOptions extends GuestProviderSettings {
  /** A dockerode client; default `new Dockerode(dockerOptions)` (honours DOCKER_HOST). */
  docker?: Dockerode
  /** Connection options for the default client (e.g. `{ socketPath }`); ignored when `docker` is given. */
  dockerOptions?: Dockerode.DockerOptions
}

/** Longest wait at close for the spare guest to be created and started (ms). */
export const LEAVE_SPARE_DEADLINE_MS = 8000

/** Starts one hardened Docker guest per session, and one checkpoint guest per repository ({@link DockerGuestProvider.checkpointLease}). */
export class DockerGuestProvider implements GuestProvider {
  readonly docker: Dockerode
  private checkpointGuests: CheckpointGuests | undefined
  private readonly repoPlaceholders = new Map<string, Set<string>>()
  /** The repository and policy of the last session guest started (the spare left at close is for them). */
  private lastSession: { repo: string; sandbox: SandboxPolicy } | undefined
  private readonly environments: GuestEnvironments
  /** What every start's {@link prepareGuest} step uses of this provider. */
  private readonly prepareDeps: PrepareDeps

  /** @param opts see {@link DockerGuestProviderOptions} */
  constructor(private readonly opts: DockerGuestProviderOptions = {}) {
    this.docker = opts.docker ?? new Dockerode(opts.dockerOptions)
    this.environments = new GuestEnvironments(opts, this.docker, (args, log, run) => this.startGuest(args, log, undefined, run))
    this.prepareDeps = { docker: this.docker, settings: opts, environments: this.environments }
  }

  /**
   * Start a guest for `repo` (absolute host path of a folder) under `sandbox` (default
   * workspace-write). Resolves once the agent is ready. Rejects with CortexError `repo_invalid`,
   * `docker_unavailable` (within {@link DOCKER_PING_TIMEOUT_MS}), `image_unavailable` or
   * `guest_failed` (with the exit code and last log lines of a container that exited), or an
   * AbortError when `signal` aborts (the container is removed).
   */
  async start(args: GuestStartOptions): Promise<Guest> {
    const log = this.opts.logger ?? NOOP_LOGGER
    const started = Date.now()
    try {
      const guest = await this.startGuest(args, log)
      log.info('guest started', { sessionId: args.sessionId, containerId: guest.id.slice(0, 12), sandbox: guest.sandbox, ms: Date.now() - started })
      return guest
    } catch (err) {
      const aborted = (err as Error).name === 'AbortError'
      log[aborted ? 'debug' : 'warn'](aborted ? 'guest start aborted' : 'guest start failed', { sessionId: args.sessionId, repo: args.repo, ...errorFields(err) })
      throw err
    }
  }

  /**
   * See {@link GuestProvider.checkpointLease}: undefined without `checkpointsDir`. The checkpoint
   * guest of `repo` mounts the repository (read-write: restores write it), the git guard's binds as
   * a `workspace-write` guest, and the store at {@link CHECKPOINT_STORE_IN_GUEST}; no network; labelled
   * like every guest (session `checkpoints-<store name>`, {@link LABEL_ROLE} `checkpoints`).
   */
  checkpointLease(repo: string): StoreLease | undefined {
    const root = this.opts.checkpointsDir
    if (!root) return undefined
    this.checkpointGuests ??= new CheckpointGuests(
      async (r, signal) => {
        const log = this.opts.logger ?? NOOP_LOGGER
        const started = Date.now()
        const guest = await this.startGuest({ sessionId: `checkpoints-${checkpointStoreName(r)}`, repo: r, sandbox: 'workspace-write', signal }, log, root)
        log.info('checkpoint guest started', { repo: r, containerId: guest.id.slice(0, 12), ms: Date.now() - started })
        return guest
      },
      { logger: this.opts.logger, idleMs: this.opts.checkpointIdleMs }
    )
    return this.checkpointGuests.lease(resolve(repo))
  }

  /** The shared set of git guard placeholders of `repo` (see DockerBackend), with `made` added. */
  private placeholdersOf(repo: string, made: readonly string[]): Set<string> {
    const set = this.repoPlaceholders.get(repo) ?? new Set<string>()
    for (const d of made) set.add(d)
    this.repoPlaceholders.set(repo, set)
    return set
  }

  /** Leave a spare guest (with the warm-guest setting, see {@link leaveSpare}), then remove the checkpoint guests (session guests belong to their sessions). Idempotent. */
  async close(): Promise<void> {
    const spare = this.leaveSpare()
    this.lastSession = undefined
    await Promise.all([spare, this.checkpointGuests?.close()])
  }

  /**
   * Prepare `repo`'s trusted project environment now (`cortex guest setup`): its image, Cortex's
   * runtime, and the setup step when its cache is missing or `opts.rebuild`. Resolves undefined
   * when the repository has no trusted environment.
   * @throws CortexError as prepareEnvironmentImage (environment/setup-step.ts); AbortError when `opts.signal` aborts
   */
  prepareProjectEnvironment(repo: string, opts: { rebuild?: boolean; signal?: AbortSignal; onProgress?: GuestProgress } = {}): Promise<PreparedEnvironment | undefined> {
    return this.environments.forRepo(repo, opts, this.opts.logger ?? NOOP_LOGGER)
  }

  /** Start a session guest (a claimed spare first, with the warm-guest setting), or with `storeRoot` the checkpoint guest of `args.repo` (see {@link checkpointLease}), or with `setupRun` the setup guest of a project environment (that image, a writable HOME). */
  private async startGuest(args: GuestStartOptions, log: Logger, storeRoot?: string, setupRun?: EnvironmentRun): Promise<Guest> {
    const p = await prepareGuest(this.prepareDeps, args, log, { storeRoot, setupRun })
    const { repo, guard, release, progress, check, signal } = { ...p, signal: args.signal }
    if (this.opts.warmGuest && !storeRoot && !args.oneOff && !setupRun) {
      this.lastSession = { repo, sandbox: p.policy }
      let claimed: Guest | undefined
      try {
        claimed = await claimSpare(this.docker, p, { readyTimeoutMs: this.opts.readyTimeoutMs ?? 30_000, placeholders: this.placeholdersOf(repo, guard.createdEmptyDirs), logger: log, signal })
      } catch (err) {
        release()
        throw err
      }
      if (claimed) {
        release()
        progress('ready', 'warm guest claimed')
        return claimed
      }
    }
    progress('starting', `creating container from ${p.runImage}`)
    const etc = passwdFiles(p.uid, p.gid)
    log.debug('creating guest container', { sessionId: args.sessionId, image: p.image, sandbox: p.policy })
    const spec = p.specFor(etc)
    let backend: DockerBackend | undefined
    try {
      // not raced: an aborted start rejects only once what it created is gone (the session's turn does not wait for that)
      const container = await this.docker.createContainer(spec)
      backend = new DockerBackend(this.docker, container, etc.dir, this.opts.readyTimeoutMs ?? 30_000, log, this.placeholdersOf(repo, guard.createdEmptyDirs))
      check()
      const main = await raceAbort(backend.attachMain(), signal)
      await raceAbort(container.start(), signal)
      release()
      let client: AgentClient
      try {
        client = await backend.connectMain(main, signal)
      } catch (err) {
        if ((err as Error).name === 'AbortError' || err instanceof CortexError) throw err
        // without a readable state the error says what the agent did, without the container's part
        const st2 = await backend.state().catch(() => undefined)
        throw new CortexError('guest_failed', `${(err as Error).message}${st2 && !st2.running ? `; ${st2.description}` : ''}`, { cause: err })
      }
      const guest = new ManagedGuest(container.id, repo, p.policy, backend, client)
      if (p.checkpointStore) guest.checkpointStore = CHECKPOINT_STORE_IN_GUEST
      if (p.image !== p.defaultImage) await probeGuestImage(guest, p.image, repo, log)
      check() // aborted while ready or probed: removed below like any aborted start
      progress('ready')
      return guest
    } catch (err) {
      release()
      const failed = backend
      if (failed) await failed.remove().catch((rmErr: unknown) => log.warn('could not remove the guest that failed to start', { containerId: failed.container.id.slice(0, 12), ...errorFields(rmErr) }))
      else {
        rmSync(etc.dir, { recursive: true, force: true })
        if (!guardHeld(repo)) removeGuardPlaceholders(guard)
      }
      if (err instanceof CortexError || (err as Error).name === 'AbortError') throw err
      throw new CortexError('guest_failed', `could not start the guest container: ${(err as Error).message}`, { cause: err })
    }
  }

  /**
   * With the warm-guest setting: leave ONE fresh spare guest (never a used one) for the repository
   * and sandbox policy of the last session guest this provider started, unless a valid spare for it
   * is there already (spare-claim.ts). Gives up after `deadlineMs` (what is left half-made is the
   * sweep's). Never rejects; the outcome is logged.
   */
  async leaveSpare(deadlineMs = LEAVE_SPARE_DEADLINE_MS): Promise<void> {
    const last = this.lastSession
    if (!this.opts.warmGuest || !last) return
    const log = this.opts.logger ?? NOOP_LOGGER
    // a folder without .git would keep the guard's empty .git placeholder for the spare's lifetime
    if (!lstatSync(join(last.repo, '.git'), { throwIfNoEntry: false })) return log.info('no spare guest left: the folder has no .git', { repo: last.repo })
    const work = (async () => {
      const p = await prepareGuest(this.prepareDeps, { sessionId: `spare-${Date.now().toString(36)}`, repo: last.repo, sandbox: last.sandbox }, log, { noBuild: true })
      try {
        await makeSpare(this.docker, p, { ttlMs: this.opts.spareTtlMs ?? spareTtlMs(), logger: log })
      } finally {
        p.release()
      }
    })()
    await withTimeout(work, deadlineMs, `no spare guest within ${deadlineMs} ms`).catch((err: unknown) => log.info('no spare guest left', { repo: last.repo, ...errorFields(err) }))
  }
}

/**
 * Remove containers labelled {@link LABEL_MANAGED}=1 whose {@link LABEL_SESSION} is not in
 * `liveSessionIds` (running or not) and whose owner process (`cortex.owner`) is this one or
 * is gone from this machine, with their passwd folders, and the passwd folders of dead processes:
 * see {@link reapOrphans} (docker-util.ts) for the rules and options. Uses `opts.docker` or the
 * engine named by DOCKER_HOST. Resolves with the removed container ids. Rejects with CortexError
 * `docker_unavailable` when the engine does not answer.
 */
export async function reapOrphanGuests(liveSessionIds: Iterable<string>, opts: ReapOptions & { docker?: Dockerode } = {}): Promise<string[]> {
  return reapOrphans(opts.docker ?? new Dockerode(), liveSessionIds, opts)
}

/**
 * Force-remove every guest container this process created (label `cortex.owner` = this
 * process's owner tag), running or not, in parallel, giving up after `deadlineMs` (default
 * {@link REMOVE_DEADLINE_MS}). For an exit that cannot wait for sessions to close (a second Ctrl-C,
 * a shutdown past its deadline). Resolves with the ids removed; never rejects.
 */
export async function removeOwnGuests(opts: { docker?: Dockerode; deadlineMs?: number } = {}): Promise<string[]> {
  return removeOwned(opts.docker ?? new Dockerode(), opts.deadlineMs ?? REMOVE_DEADLINE_MS)
}
