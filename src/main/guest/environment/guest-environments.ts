/**
 * A DockerGuestProvider's project environments (ADR 0038, 0042): which image a session guest of a
 * repository starts from when its environment is trusted, the setup step run once through a setup
 * guest the provider starts, and the repository's dependency-volumes setting. Split out of
 * docker-guest.ts; the provider holds one and asks it at each session guest's start.
 */
import { randomBytes } from 'node:crypto'
import { promises as fsp } from 'node:fs'
import { resolve } from 'node:path'
import type { Logger } from '../../../shared/logger-types'
import { raceAbort } from '../abortable'
import { dependencyVolumesModeOf, dependencyVolumesPresent, type DependencyVolumesMode } from '../dependency-volumes'
import type { EnvironmentRun, GuestProviderSettings } from '../docker-guest-options'
import type { Guest, GuestProgress, GuestStartOptions } from '../guest'
import { guestRecipeDir } from '../paths'
import type { ProjectEnvironment } from './project-image'
import { prepareEnvironmentImage, type PreparedEnvironment } from './setup-step'

/** Starts a guest for a setup step: the provider's own start with `run` deciding its image (never a spare, never a checkpoint guest). */
export type StartSetupGuest = (args: GuestStartOptions, log: Logger, run: EnvironmentRun) => Promise<Guest>

/** One provider's project environments (see the module comment). */
export class GuestEnvironments {
  /**
   * @param opts the provider's options (environment resolver, recipe folder, aroundSetup, dependencyVolumes)
   * @param docker the provider's engine client (the dependency volumes' check)
   * @param startSetupGuest how the provider starts the setup guest
   */
  constructor(
    private readonly opts: GuestProviderSettings,
    private readonly docker: Parameters<typeof dependencyVolumesPresent>[0],
    private readonly startSetupGuest: StartSetupGuest
  ) {}

  /**
   * Prepare `repo`'s trusted environment now (`cortex guest setup`); undefined when it has none.
   * @throws CortexError as prepareEnvironmentImage (setup-step.ts); AbortError when `opts.signal` aborts
   */
  async forRepo(repo: string, opts: { rebuild?: boolean; signal?: AbortSignal; onProgress?: GuestProgress }, log: Logger): Promise<PreparedEnvironment | undefined> {
    const env = await this.opts.environment?.(resolve(repo))
    if (!env) return undefined
    const st = await fsp.stat(env.repo)
    return this.prepare(env, { uid: st.uid, gid: st.gid }, opts.onProgress ?? (() => undefined), opts.signal ?? new AbortController().signal, log, opts.rebuild)
  }

  /** The dependency-volumes setting of `repo` (the provider's option, else CORTEX_DEPENDENCY_VOLUMES, else auto). */
  dependencyMode(repo: string): DependencyVolumesMode {
    return this.opts.dependencyVolumes?.(repo) ?? dependencyVolumesModeOf()
  }

  /**
   * The project environment a session guest of `repo` starts from, or undefined (none trusted, or
   * its file is invalid: said as progress). Rethrows an AbortError when `signal` aborts.
   */
  async run(repo: string, owner: { uid: number; gid: number }, progress: GuestProgress, signal: AbortSignal | undefined, log: Logger): Promise<EnvironmentRun | undefined> {
    let env: ProjectEnvironment | undefined
    try {
      env = await raceAbort(this.opts.environment?.(repo) ?? Promise.resolve(undefined), signal)
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err
      progress('starting', `project environment not used: ${(err as Error).message}`)
      return undefined
    }
    if (!env) return undefined
    const prepared = await this.prepare(env, owner, progress, signal ?? new AbortController().signal, log)
    log.info('project environment', { repo, file: env.def.file, image: prepared.image, setup: prepared.setup })
    return { image: prepared.image, env: prepared.env, volumeKey: prepared.image }
  }

  private prepare(env: ProjectEnvironment, owner: { uid: number; gid: number }, progress: GuestProgress, signal: AbortSignal, log: Logger, rebuild = false): Promise<PreparedEnvironment> {
    return prepareEnvironmentImage(env, {
      owner, recipeDir: this.opts.recipeDir ?? guestRecipeDir(), progress, signal, rebuild, aroundSetup: this.opts.aroundSetup,
      startSetupGuest: (image, vars, network, sig, cacheTag) =>
        this.startSetupGuest({ sessionId: `setup-${randomBytes(4).toString('hex')}`, repo: env.repo, sandbox: network ? 'network' : 'workspace-write', signal: sig }, log, { image, env: vars, setup: true, volumeKey: cacheTag }),
      // a cache whose dependency volumes are gone (pruned) runs the setup again
      cacheReady: (tag) => dependencyVolumesPresent(this.docker, { repo: env.repo, mode: this.dependencyMode(env.repo), contentKey: tag, lockHash: env.lockHash })
    })
  }
}
