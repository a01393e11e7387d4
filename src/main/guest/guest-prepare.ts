/**
 * Everything before a guest container is created (the `prepare` step of docker-guest.ts): the
 * checks (repository, agent bundle, engine), the image, the network of the `network` policy, the
 * dependency volumes, the host watchdog, the git guard hold and the create options. Split out of
 * docker-guest.ts, which stays the only dockerode importer: the engine comes in as a structural type.
 */
import { mkdirSync } from 'node:fs'
import { promises as fsp } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { CortexError } from '../../shared/errors'
import type { Logger } from '../../shared/logger-types'
import { DEFAULT_SANDBOX_POLICY } from '../../shared/sandbox'
import type { SandboxPolicy } from '../../shared/sandbox'
import { abortError } from './agent-client'
import { GUEST_NETWORK, LABEL_MANAGED, LABEL_ROLE, guestContainerSpec } from './container-spec'
import type { GuestContainerSpec } from './container-spec'
import type { Prepared } from './spare-claim'
import type { GuestProgress, GuestStartOptions } from './guest'
import { gitGuardMounts, holdGuard } from './git-protect'
import { ensureCheckpointStore } from './checkpoint-mount'
import { guestImageTag } from './image'
import { ensureStartImage, raceAbort, type ImageEngine } from './abortable'
import type { GuestEnvironments } from './environment/guest-environments'
import type { EnvironmentRun, GuestProviderSettings } from './docker-guest-options'
import { prepareDependencyVolumes, type VolumeEngine } from './dependency-volumes'
import { hashLockfiles } from './environment/lockfiles'
import { defaultAgentPath } from './paths'
import { dockerEndpointOf, ensureHostWatchdog } from './host-watchdog'
import { dockerWhere, statusOf, withTimeout } from './docker-util'

/** Longest wait for the Docker engine to answer a ping (ms). */
export const DOCKER_PING_TIMEOUT_MS = 4000

/** The engine calls made before a container is created (a dockerode client satisfies it). */
export interface PrepareEngine extends ImageEngine, VolumeEngine {
  ping(): Promise<unknown>
  /** The engine's connection (its options name the endpoint the host watchdog talks to). */
  modem: object
  getNetwork(name: string): { inspect(): Promise<unknown> }
  createNetwork(opts: { Name: string; Driver: string; CheckDuplicate: boolean; Labels: Record<string, string> }): Promise<unknown>
}

/** What {@link prepareGuest} uses of its provider: the engine, the provider's settings and its project environments. */
export interface PrepareDeps {
  docker: PrepareEngine
  settings: GuestProviderSettings
  environments: GuestEnvironments
}

/** Which start is prepared: a session guest by default. */
export interface PrepareKind {
  /** `<dataDir>/checkpoints`: a checkpoint guest of the repository, which mounts its store from here. */
  storeRoot?: string
  /** Never build the image (a spare's creation): a missing one fails with `image_unavailable`. */
  noBuild?: boolean
  /** The setup guest of a project environment: that run decides the image. */
  setupRun?: EnvironmentRun
}

/**
 * Everything before a container is created, shared by a session guest, a checkpoint guest, a
 * spare's claim and a spare's creation: the checks (repository, agent bundle, engine), the image
 * (built when missing unless `noBuild`), the network, the watchdog, the git guard (held until
 * `release()`) and the create options for a passwd folder. A trusted project environment (ADR 0038)
 * decides a session guest's image (`setupRun`: the setup guest's); never a checkpoint guest's or a spare's.
 * @throws CortexError `repo_invalid` (also from `settings.checkRepo`), `guest_failed` (no agent bundle, no network), `docker_unavailable`
 *   (no answer within {@link DOCKER_PING_TIMEOUT_MS}), `image_unavailable`; AbortError when `args.signal` aborts
 */
export async function prepareGuest(deps: PrepareDeps, args: GuestStartOptions, log: Logger, kind: PrepareKind = {}): Promise<Prepared> {
  const { docker, settings, environments } = deps
  const { storeRoot, noBuild = false, setupRun } = kind
  const { sessionId, signal } = args
  const policy: SandboxPolicy = args.sandbox ?? DEFAULT_SANDBOX_POLICY
  const progress: GuestProgress = args.onProgress ?? (() => undefined)
  const check = (): void => {
    if (signal?.aborted) throw abortError()
  }
  if (!isAbsolute(args.repo)) throw new CortexError('repo_invalid', `repository path must be absolute: ${args.repo}`)
  const repo = resolve(args.repo)
  // the folder policy at the depth every start passes: whoever asks, a refused folder is never mounted
  settings.checkRepo?.(repo)
  const st = await fsp.stat(repo).catch(() => undefined) // a failed stat is the repo_invalid below
  if (!st?.isDirectory()) throw new CortexError('repo_invalid', `repository ${repo} does not exist or is not a folder`)
  const agentPath = settings.agentPath ?? defaultAgentPath()
  // a failed stat is the missing-bundle error below
  if (!(await fsp.stat(agentPath).catch(() => undefined))?.isFile()) {
    throw new CortexError('guest_failed', `guest agent bundle not found at ${agentPath}; build it with: npx vite build -c vite.agent.config.mts`)
  }
  check()
  try {
    await raceAbort(withTimeout(docker.ping(), DOCKER_PING_TIMEOUT_MS, `no answer within ${DOCKER_PING_TIMEOUT_MS} ms`), signal)
  } catch (err) {
    check()
    throw new CortexError('docker_unavailable', `no Docker engine answered at ${dockerWhere()} (${(err as Error).message}); start Docker or set DOCKER_HOST`, { cause: err })
  }
  check()
  const defaultImage = guestImageTag(settings.recipeDir)
  // a trusted project environment (ADR 0038) decides the image of session guests, never of checkpoint guests or spares
  const envRun = setupRun ?? (storeRoot || noBuild ? undefined : await environments.run(repo, { uid: st.uid, gid: st.gid }, progress, signal, log))
  const image = envRun?.image ?? settings.image ?? defaultImage
  // aborting stops waiting for a build, which goes on for the next start (ADR 0008)
  // a user's image starts from its derived image (Cortex's Node added, ADR 0030)
  const runImage = envRun ? image : await ensureStartImage(docker, image, progress, { buildImage: noBuild ? false : settings.buildImage, recipeDir: settings.recipeDir, signal })
  const network = policy === 'network' ? await guestNetwork(docker) : undefined
  check()
  // dependency folders in volumes (the setting; never in a checkpoint guest, which snapshots the host's tree)
  const volumes = storeRoot ? [] : await prepareDependencyVolumes(docker, {
    repo, mode: environments.dependencyMode(repo), contentKey: envRun?.volumeKey ?? runImage, lockHash: (await hashLockfiles(repo, signal)).hash, owner: { uid: st.uid, gid: st.gid }, image: runImage, say: (l) => progress('starting', l), signal
  })
  check()

  // before the first container exists: from now on a killed process leaves no guest behind
  ensureHostWatchdog(await dockerEndpointOf(docker.modem as Record<string, unknown>).catch(() => undefined), (msg) => log.warn(msg))
  // git control files read-only in the guest, so nothing there runs on the host later (ADR 0006)
  const release = holdGuard(repo)
  try {
    const guard = gitGuardMounts(repo, { uid: st.uid, gid: st.gid }, policy)
    for (const n of guard.notes) log.info(`git guard: ${n}`, { sessionId })
    // only a checkpoint guest mounts the store: no model command runs where it is reachable (ADR 0010)
    const checkpointStore = storeRoot ? ensureCheckpointStore(storeRoot, repo, st) : undefined
    // session guests only: no MCP server runs in a checkpoint guest
    const mcpPackages = settings.mcpPackagesDir && !storeRoot ? ensureFolder(settings.mcpPackagesDir) : undefined
    const specFor = (etc: { passwd: string; group: string }): GuestContainerSpec =>
      guestContainerSpec({
        sessionId, repo, image: runImage, agentPath, uid: st.uid, gid: st.gid, etc, policy, network, limits: settings.limits, labels: checkpointStore ? { ...settings.labels, [LABEL_ROLE]: 'checkpoints' } : settings.labels, guardMounts: guard.mounts, checkpointStore, mcpPackages, volumes,
        ...(envRun ? { environment: { env: envRun.env, setup: envRun.setup } } : {})
      })
    return { repo, repoIdentity: `${st.dev}:${st.ino}`, uid: st.uid, gid: st.gid, policy, agentPath, image, defaultImage, runImage, guard, release, checkpointStore, specFor, progress, check }
  } catch (err) {
    release()
    throw err
  }
}

/** The network for the `network` policy: `bridge` when it exists, else {@link GUEST_NETWORK}, created when missing. */
async function guestNetwork(docker: PrepareEngine): Promise<string> {
  for (const name of ['bridge', GUEST_NETWORK]) {
    try {
      await docker.getNetwork(name).inspect()
      return name
    } catch (err) {
      if (statusOf(err) !== 404) throw new CortexError('docker_unavailable', `Docker engine error inspecting network ${name}: ${(err as Error).message}`, { cause: err })
    }
  }
  try {
    await docker.createNetwork({ Name: GUEST_NETWORK, Driver: 'bridge', CheckDuplicate: true, Labels: { [LABEL_MANAGED]: '1' } })
  } catch (err) {
    if (statusOf(err) !== 409) throw new CortexError('guest_failed', `cannot create the guest network ${GUEST_NETWORK}: ${(err as Error).message}`, { cause: err })
  }
  return GUEST_NETWORK
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
