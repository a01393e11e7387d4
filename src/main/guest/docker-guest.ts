/**
 * Docker guests (the only dockerode importer): one hardened container per session (create options
 * in container-spec.ts) with the repository bind-mounted at the same absolute path, running as the
 * repository owner's uid:gid, and ONE long-lived exec of the guest agent speaking the line
 * protocol, restarted by {@link ManagedGuest} when it dies. Honours DOCKER_HOST (unix:// or
 * tcp://) through dockerode; never names a socket itself. Also reaps orphan containers by label.
 */
import { randomBytes } from 'node:crypto'
import { lstatSync, mkdirSync, rmSync } from 'node:fs'
import { promises as fsp } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import Dockerode from 'dockerode'
import { CortexError } from '../../shared/errors'
import { errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import { DEFAULT_SANDBOX_POLICY } from '../../shared/sandbox'
import type { SandboxPolicy } from '../../shared/sandbox'
import { AgentClient, abortError } from './agent-client'
import { GUEST_NETWORK, LABEL_MANAGED, LABEL_ROLE, guestContainerSpec, passwdFiles } from './container-spec'
import type { GuestContainerSpec, GuestLimits } from './container-spec'
import { claimSpare, makeSpare, type Prepared } from './spare-claim'
import { spareTtlMs } from './spare-guests'
import type { Guest, GuestProgress, GuestProvider, GuestStartOptions, StoreLease } from './guest'
import { gitGuardMounts, guardHeld, holdGuard, removeGuardPlaceholders } from './git-protect'
import { CHECKPOINT_STORE_IN_GUEST, checkpointStoreName, ensureCheckpointStore } from './checkpoint-mount'
import { CheckpointGuests } from './checkpoint-guests'
import { guestImageTag, probeGuestImage } from './image'
import { ensureStartImage, raceAbort } from './abortable'
import { ManagedGuest } from './managed-guest'
import type { ProjectEnvironment } from './environment/project-image'
import { prepareEnvironmentImage, type EnvironmentStartDeps, type PreparedEnvironment } from './environment/setup-step'
import { DockerBackend, REMOVE_DEADLINE_MS } from './docker-backend'
import { dependencyVolumesModeOf, dependencyVolumesPresent, prepareDependencyVolumes, type DependencyVolumesMode } from './dependency-volumes'
import { hashLockfiles } from './environment/lockfiles'
import { defaultAgentPath, guestRecipeDir } from './paths'
import { dockerEndpointOf, ensureHostWatchdog } from './host-watchdog'
import { dockerWhere, reapOrphans, removeOwned, statusOf, throttleBuildProgress, withTimeout, type ReapOptions } from './docker-util'

export { throttleBuildProgress }
export { REQUIRED_GUEST_COMMANDS } from './image'

export { AGENT_IN_GUEST, GUEST_HOME, LABEL_MANAGED, LABEL_REPO, LABEL_SANDBOX, LABEL_SESSION } from './container-spec'
export type { GuestLimits } from './container-spec'

/** Longest wait for the Docker engine to answer a ping (ms). */
export const DOCKER_PING_TIMEOUT_MS = 4000
export { REMOVE_DEADLINE_MS }

/** Options of {@link DockerGuestProvider}. */
export interface DockerGuestProviderOptions {
  /** A dockerode client; default `new Dockerode(dockerOptions)` (honours DOCKER_HOST). */
  docker?: Dockerode
  /** Connection options for the default client (e.g. `{ socketPath }`); ignored when `docker` is given. */
  dockerOptions?: Dockerode.DockerOptions
  /**
   * Image tag; default {@link guestImageTag}(). A user-named image is refused when built on musl,
   * started from its derived image with Cortex's Node (ADR 0030), and probed once at attach for
   * node ≥ 18 and {@link REQUIRED_GUEST_COMMANDS}; one lacking them fails with `image_unavailable`.
   */
  image?: string
  /** Build the image when missing (default true); false → `image_unavailable` when missing. */
  buildImage?: boolean
  /** Host path of the agent bundle; default `<package root>/out/guest-agent/agent.cjs`. */
  agentPath?: string
  /** Resource limits. */
  limits?: GuestLimits
  /** Extra container labels (e.g. to mark test containers). */
  labels?: Record<string, string>
  /** How long to wait for the agent's `ready` (ms). Default 30 000. */
  readyTimeoutMs?: number
  /** Where starts, failures, removals and the agent connection's diagnostics are logged (default nowhere). */
  logger?: Logger
  /** Recipe folder of the default image, whose tag is computed from it (default resources/guest; tests build a recipe of their own). */
  recipeDir?: string
  /** `<dataDir>/checkpoints`: each repository's checkpoint guest mounts its store from here (checkpoint-mount.ts); unset, no checkpoints. */
  checkpointsDir?: string
  /** A checkpoint guest without a store operation this long (ms) is removed; default CHECKPOINT_GUEST_IDLE_MS (checkpoint-guests.ts). */
  checkpointIdleMs?: number
  /** `<CORTEX_HOME>/mcp/packages`: the user's MCP package cache, created when missing and bound read-only into every guest (unset: not mounted). */
  mcpPackagesDir?: string
  /**
   * The warm-guest setting of `cortex run` and the TUI (ADR 0040): a session guest is a claimed
   * spare when a matching one is there, and {@link DockerGuestProvider.close} leaves a fresh one.
   */
  warmGuest?: boolean
  /** Idle lifetime of a spare left at close (ms); default {@link spareTtlMs}() (CORTEX_WARM_GUEST_TTL_MS, else 10 min). */
  spareTtlMs?: number
  /**
   * The repository's own environment when the user trusts it (devcontainer.json; the resolver in
   * main/extensions/environment), else undefined: session guests then start from it (its setup
   * step run once and cached, environment/setup-step.ts); checkpoint guests never do. A resolver
   * that throws (an invalid file) leaves the default image, with the error as a progress note.
   */
  environment?: (repo: string) => Promise<ProjectEnvironment | undefined>
  /** Wraps a project environment's setup commands (the git-arming disarm, session/setup-guard.ts); see EnvironmentStartDeps. */
  aroundSetup?: EnvironmentStartDeps['aroundSetup']
  /** The dependency-volumes setting of a repository (dependency-volumes.ts); default {@link dependencyVolumesModeOf}() (CORTEX_DEPENDENCY_VOLUMES, else auto). */
  dependencyVolumes?: (repo: string) => DependencyVolumesMode
}

/** How one guest start uses a project environment: the image prepared for it and its variables. */
interface EnvironmentRun {
  image: string
  env: Record<string, string>
  /** The setup guest (its writable root is committed); else a session guest (read-only root, HOME a volume from the image). */
  setup?: boolean
  /** Content key of the dependency volumes: the setup cache's tag (the setup guest fills the volumes session guests mount). */
  volumeKey?: string
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

  /** @param opts see {@link DockerGuestProviderOptions} */
  constructor(private readonly opts: DockerGuestProviderOptions = {}) {
    this.docker = opts.docker ?? new Dockerode(opts.dockerOptions)
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
   * Prepare the image of `repo`'s project environment now (`cortex guest setup`): its base, Cortex's
   * runtime, and the setup step when its cache is missing or `opts.rebuild`. Resolves undefined
   * when the repository has no trusted environment.
   * @throws CortexError as {@link prepareEnvironmentImage}; AbortError when `opts.signal` aborts
   */
  async prepareProjectEnvironment(repo: string, opts: { rebuild?: boolean; signal?: AbortSignal; onProgress?: GuestProgress } = {}): Promise<PreparedEnvironment | undefined> {
    const env = await this.opts.environment?.(resolve(repo))
    if (!env) return undefined
    const st = await fsp.stat(env.repo)
    const log = this.opts.logger ?? NOOP_LOGGER
    return this.prepareEnvironment(env, { uid: st.uid, gid: st.gid }, opts.onProgress ?? (() => undefined), opts.signal ?? new AbortController().signal, log, opts.rebuild)
  }

  private prepareEnvironment(env: ProjectEnvironment, owner: { uid: number; gid: number }, progress: GuestProgress, signal: AbortSignal, log: Logger, rebuild = false): Promise<PreparedEnvironment> {
    return prepareEnvironmentImage(env, {
      owner, recipeDir: this.opts.recipeDir ?? guestRecipeDir(), progress, signal, rebuild, aroundSetup: this.opts.aroundSetup,
      startSetupGuest: (image, vars, network, sig, cacheTag) =>
        this.startGuest({ sessionId: `setup-${randomBytes(4).toString('hex')}`, repo: env.repo, sandbox: network ? 'network' : 'workspace-write', signal: sig }, log, undefined, { image, env: vars, setup: true, volumeKey: cacheTag }),
      // a cache whose dependency volumes are gone (pruned) runs the setup again
      cacheReady: (tag) => dependencyVolumesPresent(this.docker, { repo: env.repo, mode: this.dependencyMode(env.repo), contentKey: tag, lockHash: env.lockHash })
    })
  }

  /** The dependency-volumes setting of `repo`. */
  private dependencyMode(repo: string): DependencyVolumesMode {
    return this.opts.dependencyVolumes?.(repo) ?? dependencyVolumesModeOf()
  }

  /** The project environment a session guest of `repo` starts from, or undefined (none trusted, or its file is invalid: said as progress). */
  private async environmentRun(repo: string, owner: { uid: number; gid: number }, progress: GuestProgress, signal: AbortSignal | undefined, log: Logger): Promise<EnvironmentRun | undefined> {
    let env: ProjectEnvironment | undefined
    try {
      env = await raceAbort(this.opts.environment?.(repo) ?? Promise.resolve(undefined), signal)
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err
      progress('starting', `project environment not used: ${(err as Error).message}`)
      return undefined
    }
    if (!env) return undefined
    const prepared = await this.prepareEnvironment(env, owner, progress, signal ?? new AbortController().signal, log)
    log.info('project environment', { repo, file: env.def.file, image: prepared.image, setup: prepared.setup })
    return { image: prepared.image, env: prepared.env, volumeKey: prepared.image }
  }

  /**
   * Everything before a container is created, shared by a session guest, a checkpoint guest, a
   * spare's claim and a spare's creation: the checks (repository, agent bundle, engine), the image
   * (built when missing unless `noBuild`), the network, the watchdog, the git guard (held until
   * `release()`) and the create options for a passwd folder. A trusted project environment (ADR 0038)
   * decides a session guest's image (`setupRun`: the setup guest's); never a checkpoint guest's or a spare's.
   */
  private async prepare(args: GuestStartOptions, log: Logger, storeRoot?: string, noBuild = false, setupRun?: EnvironmentRun): Promise<Prepared> {
    const { sessionId, signal } = args
    const policy: SandboxPolicy = args.sandbox ?? DEFAULT_SANDBOX_POLICY
    const progress: GuestProgress = args.onProgress ?? (() => undefined)
    const check = (): void => {
      if (signal?.aborted) throw abortError()
    }
    if (!isAbsolute(args.repo)) throw new CortexError('repo_invalid', `repository path must be absolute: ${args.repo}`)
    const repo = resolve(args.repo)
    const st = await fsp.stat(repo).catch(() => undefined) // a failed stat is the repo_invalid below
    if (!st?.isDirectory()) throw new CortexError('repo_invalid', `repository ${repo} does not exist or is not a folder`)
    const agentPath = this.opts.agentPath ?? defaultAgentPath()
    // a failed stat is the missing-bundle error below
    if (!(await fsp.stat(agentPath).catch(() => undefined))?.isFile()) {
      throw new CortexError('guest_failed', `guest agent bundle not found at ${agentPath}; build it with: npx vite build -c vite.agent.config.mts`)
    }
    check()
    try {
      await raceAbort(withTimeout(this.docker.ping(), DOCKER_PING_TIMEOUT_MS, `no answer within ${DOCKER_PING_TIMEOUT_MS} ms`), signal)
    } catch (err) {
      check()
      throw new CortexError('docker_unavailable', `no Docker engine answered at ${dockerWhere()} (${(err as Error).message}); start Docker or set DOCKER_HOST`, { cause: err })
    }
    check()
    const defaultImage = guestImageTag(this.opts.recipeDir)
    // a trusted project environment (ADR 0038) decides the image of session guests, never of checkpoint guests or spares
    const envRun = setupRun ?? (storeRoot || noBuild ? undefined : await this.environmentRun(repo, { uid: st.uid, gid: st.gid }, progress, signal, log))
    const image = envRun?.image ?? this.opts.image ?? defaultImage
    // aborting stops waiting for a build, which goes on for the next start (ADR 0008)
    // a user's image starts from its derived image (Cortex's Node added, ADR 0030)
    const runImage = envRun ? image : await ensureStartImage(this.docker, image, progress, { buildImage: noBuild ? false : this.opts.buildImage, recipeDir: this.opts.recipeDir, signal })
    const network = policy === 'network' ? await this.guestNetwork() : undefined
    check()
    // dependency folders in volumes (the setting; never in a checkpoint guest, which snapshots the host's tree)
    const volumes = storeRoot ? [] : await prepareDependencyVolumes(this.docker, {
      repo, mode: this.dependencyMode(repo), contentKey: envRun?.volumeKey ?? runImage, lockHash: (await hashLockfiles(repo, signal)).hash, owner: { uid: st.uid, gid: st.gid }, image: runImage, say: (l) => progress('starting', l), signal
    })
    check()

    // before the first container exists: from now on a killed process leaves no guest behind
    ensureHostWatchdog(await dockerEndpointOf(this.docker.modem as unknown as Record<string, unknown>).catch(() => undefined), (msg) => log.warn(msg))
    // git control files read-only in the guest, so nothing there runs on the host later (ADR 0006)
    const release = holdGuard(repo)
    try {
      const guard = gitGuardMounts(repo, { uid: st.uid, gid: st.gid }, policy)
      for (const n of guard.notes) log.info(`git guard: ${n}`, { sessionId })
      // only a checkpoint guest mounts the store: no model command runs where it is reachable (ADR 0010)
      const checkpointStore = storeRoot ? ensureCheckpointStore(storeRoot, repo, st) : undefined
      // session guests only: no MCP server runs in a checkpoint guest
      const mcpPackages = this.opts.mcpPackagesDir && !storeRoot ? ensureFolder(this.opts.mcpPackagesDir) : undefined
      const specFor = (etc: { passwd: string; group: string }): GuestContainerSpec =>
        guestContainerSpec({
          sessionId, repo, image: runImage, agentPath, uid: st.uid, gid: st.gid, etc, policy, network, limits: this.opts.limits, labels: checkpointStore ? { ...this.opts.labels, [LABEL_ROLE]: 'checkpoints' } : this.opts.labels, guardMounts: guard.mounts, checkpointStore, mcpPackages, volumes,
          ...(envRun ? { environment: { env: envRun.env, setup: envRun.setup } } : {})
        })
      return { repo, repoIdentity: `${st.dev}:${st.ino}`, uid: st.uid, gid: st.gid, policy, agentPath, image, defaultImage, runImage, guard, release, checkpointStore, specFor, progress, check }
    } catch (err) {
      release()
      throw err
    }
  }

  /** Start a session guest (a claimed spare first, with the warm-guest setting), or with `storeRoot` the checkpoint guest of `args.repo` (see {@link checkpointLease}), or with `setupRun` the setup guest of a project environment (that image, a writable HOME). */
  private async startGuest(args: GuestStartOptions, log: Logger, storeRoot?: string, setupRun?: EnvironmentRun): Promise<Guest> {
    const p = await this.prepare(args, log, storeRoot, false, setupRun)
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
      const p = await this.prepare({ sessionId: `spare-${Date.now().toString(36)}`, repo: last.repo, sandbox: last.sandbox }, log, undefined, true)
      try {
        await makeSpare(this.docker, p, { ttlMs: this.opts.spareTtlMs ?? spareTtlMs(), logger: log })
      } finally {
        p.release()
      }
    })()
    await withTimeout(work, deadlineMs, `no spare guest within ${deadlineMs} ms`).catch((err: unknown) => log.info('no spare guest left', { repo: last.repo, ...errorFields(err) }))
  }

  /** The network for the `network` policy: `bridge` when it exists, else {@link GUEST_NETWORK}, created when missing. */
  private async guestNetwork(): Promise<string> {
    for (const name of ['bridge', GUEST_NETWORK]) {
      try {
        await this.docker.getNetwork(name).inspect()
        return name
      } catch (err) {
        if (statusOf(err) !== 404) throw new CortexError('docker_unavailable', `Docker engine error inspecting network ${name}: ${(err as Error).message}`, { cause: err })
      }
    }
    try {
      await this.docker.createNetwork({ Name: GUEST_NETWORK, Driver: 'bridge', CheckDuplicate: true, Labels: { [LABEL_MANAGED]: '1' } })
    } catch (err) {
      if (statusOf(err) !== 409) throw new CortexError('guest_failed', `cannot create the guest network ${GUEST_NETWORK}: ${(err as Error).message}`, { cause: err })
    }
    return GUEST_NETWORK
  }

}

/**
 * `dir`, created when missing (0755: the guest's user, the repository's owner, reads it through the
 * bind); undefined when it cannot be (the guest then starts without it).
 */
function ensureFolder(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 })
    return dir
  } catch {
    return undefined
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
