/**
 * `cortex guest setup [--repo DIR] [--rebuild] [--trust]`: show what the repository's environment
 * will run, enable it when the user says `--trust`, and prepare its guest image now (the base,
 * Cortex's runtime, the setup step into its cache; `--rebuild` runs the setup again). The same
 * preparation a session's guest start does (docs/adr/0038).
 */
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { errorFields, type Logger, NOOP_LOGGER } from '../../../shared/logger-types'
import { DockerGuestProvider, type DockerGuestProviderOptions } from '../../guest/docker-guest'
import { DEVCONTAINER_FILES } from '../../guest/environment/devcontainer'
import { TrustStore } from '../trust-store'
import { dependencyVolumesApply, dependencyVolumesModeOf, type DependencyVolumesMode } from '../../guest/dependency-volumes'
import { SettingsStore } from '../../store/settings-store'
import { ENVIRONMENT_TRUST_KEY, environmentCardDetail, environmentResolver, readEnvironmentFiles } from './read-environment'

/** Options of {@link guestSetup}. */
export interface GuestSetupOptions {
  /** The repository (default the working folder); used by its real path, as sessions key trust. */
  repo?: string
  /** CORTEX_HOME: where the trust decision is kept. */
  dataDir: string
  /** Run the setup step again even when its cache exists. */
  rebuild?: boolean
  /**
   * Enable the definition shown: the same decision as the session's trust card, bound to what the
   * user saw — `hash` (a prefix of the printed hash) or a yes from `confirm` after it was printed;
   * with neither, nothing is enabled and the command to run is written.
   */
  trust?: boolean
  /** The content hash the user reviewed (8+ hex digits, as printed): refused when the definition's differs. */
  hash?: string
  /** Ask the user (a terminal's `[y/N]`) after the definition and its hash were written; absent: nobody to ask. */
  confirm?: () => Promise<boolean>
  /** Stop (Ctrl-C): kills a running build or setup command and removes the setup guest. */
  signal?: AbortSignal
  logger?: Logger
  /**
   * Refuse a folder no guest may mount writable (session/repo-policy.ts, given by session/guest-entries.ts):
   * throws with the reason, which is written as the error. Absent: no check.
   */
  checkRepo?: (repo: string) => void
  /** Wraps the setup commands (the session's git-arming disarm); see DockerGuestProviderOptions.aroundSetup. */
  aroundSetup?: DockerGuestProviderOptions['aroundSetup']
  /** The dependency-volumes setting of a repository (session/guest-entries.ts dependencyVolumesSetting); default CORTEX_DEPENDENCY_VOLUMES, else auto. */
  dependencyVolumes?: DockerGuestProviderOptions['dependencyVolumes']
  /** `--dependency-volumes MODE`: save MODE for this repository in settings.json first (sessions use it from their next guest start). */
  saveDependencyVolumes?: DependencyVolumesMode
}

/**
 * The hash `--trust` binds to: `opts.hash` (lowercased; refused with a message when malformed or
 * not a prefix of `shown`), `shown` itself after `opts.confirm` said yes, or null (refused: a no,
 * or nobody to ask and no `--hash`; why and `command` were written).
 */
async function boundHash(shown: string, opts: GuestSetupOptions, command: string, write: (line: string) => void): Promise<string | null> {
  if (opts.hash !== undefined) {
    const given = opts.hash.trim().toLowerCase()
    if (!/^[0-9a-f]{8,64}$/.test(given)) {
      write(`error: --hash "${opts.hash}" must be 8 to 64 hex digits, as printed above`)
      return null
    }
    if (!shown.startsWith(given)) {
      write(`error: not enabled: the environment's hash is now ${shown.slice(0, 12)}, not ${given.slice(0, 12)}: it changed since you reviewed it. Read the above, then run \`${command}\``)
      return null
    }
    return given
  }
  if (opts.confirm) {
    if (await opts.confirm()) return shown
    write('nothing enabled')
    return null
  }
  write(`not enabled: without a terminal to ask, name the definition you reviewed with --hash: \`${command}\``)
  return null
}

/**
 * Run `cortex guest setup`, writing lines to `write`. Resolves with the exit status: 0 when the
 * environment's image is ready, 1 when there is no definition, it is not enabled (and `trust` was
 * not given), it cannot be used, or the preparation failed (the error's message is written).
 */
export async function guestSetup(opts: GuestSetupOptions, write: (line: string) => void): Promise<number> {
  const abs = resolve(opts.repo ?? '.')
  let repo: string
  try {
    repo = realpathSync(abs)
  } catch {
    write(`error: ${abs} does not exist`)
    return 1
  }
  const log = opts.logger ?? NOOP_LOGGER
  try {
    // the setup's guest mounts the folder writable, like a session's: the same folders are refused
    opts.checkRepo?.(repo)
    if (opts.saveDependencyVolumes) {
      saveRepoDependencyVolumes(opts.dataDir, repo, opts.saveDependencyVolumes)
      write(`dependency volumes set to ${opts.saveDependencyVolumes} for ${repo}`)
    }
    const mode = (opts.dependencyVolumes ?? (() => dependencyVolumesModeOf()))(repo)
    write(`dependency folders (setting ${mode}${mode === 'auto' ? `, the host is ${process.platform}` : ''}): ${dependencyVolumesApply(mode) ? 'in Docker volumes per repository and lockfiles, not in the repository\'s tree (cortex guest prune removes them)' : 'the repository\'s own folders'}`)
    const f = readEnvironmentFiles(repo)
    if (!f) {
      write(`${repo} has no project environment (${DEVCONTAINER_FILES.join(' or ')})`)
      return 1
    }
    write(`Project environment ${f.file} of ${repo} (hash ${f.hash.slice(0, 12)}):`)
    for (const l of environmentCardDetail(f).split('\n')) write(`  ${l}`)
    const store = new TrustStore(opts.dataDir)
    if (!store.isTrusted(repo, ENVIRONMENT_TRUST_KEY, f.hash)) {
      const command = `cortex guest setup --trust --hash ${f.hash.slice(0, 12)} --repo ${JSON.stringify(repo)}`
      if (!opts.trust) {
        write(`not enabled${store.wasTrusted(repo, ENVIRONMENT_TRUST_KEY) ? ' (it changed since you enabled it)' : ''}: sessions use the default guest. Read the above, then run \`${command}\` to enable it`)
        return 1
      }
      const bound = await boundHash(f.hash, opts, command, write)
      if (bound === null) return 1
      // read again: what is enabled is the content printed above, or nothing
      const now = readEnvironmentFiles(repo)
      if (!now || !now.hash.startsWith(bound)) {
        write(`error: not enabled: the environment changed since it was shown (its hash is now ${now ? now.hash.slice(0, 12) : 'gone'}); run cortex guest setup again to review it`)
        return 1
      }
      store.trust(repo, [{ key: ENVIRONMENT_TRUST_KEY, hash: now.hash }])
      write('enabled for this repository (a change to it disables it again)')
    }
    if (!f.def) {
      write(`error: ${f.error ?? 'the definition cannot be used'}`)
      return 1
    }
    const provider = new DockerGuestProvider({ environment: environmentResolver(store), logger: log, aroundSetup: opts.aroundSetup, dependencyVolumes: opts.dependencyVolumes, ...(opts.checkRepo ? { checkRepo: opts.checkRepo } : {}) })
    const prepared = await provider.prepareProjectEnvironment(repo, {
      rebuild: opts.rebuild, signal: opts.signal, onProgress: (_state, detail) => detail && write(detail)
    })
    if (!prepared) throw new Error('the environment was not enabled when the preparation began')
    write(`ready: sessions of ${repo} start from ${prepared.image} (setup: ${prepared.setup === 'ran' ? 'ran now' : prepared.setup === 'cached' ? 'cached, not run' : 'none'})`)
    return 0
  } catch (err) {
    log.warn('guest setup failed', errorFields(err))
    write(`error: ${(err as Error).message}`)
    return 1
  }
}

/**
 * Save `mode` as `repo`'s dependency-volumes choice in `<dataDir>/settings.json` (other settings kept,
 * a bad value of another field too).
 * @throws CortexError when the file exists but is not a JSON object (it is left as it is)
 */
function saveRepoDependencyVolumes(dataDir: string, repo: string, mode: DependencyVolumesMode): void {
  const store = new SettingsStore(dataDir)
  const s = store.read()
  store.write({ ...s, dependencyVolumesRepos: { ...s.dependencyVolumesRepos, [repo]: mode } })
}
