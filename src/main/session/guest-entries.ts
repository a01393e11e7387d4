/**
 * The entries of the guest commands outside a session: `cortex guest setup` and `cortex mcp test`
 * start a guest on a folder the user names, so each applies the session's folder policy
 * (repo-policy.ts) before it mounts the folder; `cortex guest prune` removes images and volumes.
 */
import { NOOP_LOGGER } from '../../shared/logger-types'
import { DockerGuestProvider } from '../guest/docker-guest'
import { dependencyVolumesModeOf, type DependencyVolumesMode } from '../guest/dependency-volumes'
import { pruneGuestCaches } from '../guest/prune'
import { guestSetup, type GuestSetupOptions } from '../extensions/environment/guest-setup'
import { probeMcpServer, type ProbeResult } from '../extensions/mcp/config-probe'
import { SettingsStore } from '../store/settings-store'
import { checkRepoPolicy } from './repo-policy'
import { disarmAroundSetup } from './setup-guard'

/**
 * Entry for `cortex guest setup`: show the repository's environment (devcontainer.json), enable it
 * with `opts.trust`, and prepare its guest image now (ADR 0038); lines go to `write`.
 * Resolves with the exit status (0 ready, 1 otherwise, with the reason written).
 */
export function guestSetupMain(opts: GuestSetupOptions, write: (line: string) => void): Promise<number> {
  // a root-owned folder is the session's to refuse: the setup runs what the user reviewed, as the folder's owner
  const checkRepo = (repo: string): void => void checkRepoPolicy(repo, { dataDir: opts.dataDir, allowRootRepo: true })
  return guestSetup({ aroundSetup: disarmAroundSetup(opts.logger ?? NOOP_LOGGER), dependencyVolumes: dependencyVolumesSetting(opts.dataDir), ...opts, checkRepo }, write)
}

/**
 * The dependency-volumes setting of a repository, read from `<dataDir>/settings.json` at each guest
 * start (its per-repository choice, else the default; a missing or bad file: auto), under
 * CORTEX_DEPENDENCY_VOLUMES (the CLI flag) when set.
 * @throws CortexError('invalid_input') from the returned function for a bad CORTEX_DEPENDENCY_VOLUMES
 */
export function dependencyVolumesSetting(dataDir: string): (repo: string) => DependencyVolumesMode {
  return (repo) => {
    let mode: DependencyVolumesMode = 'auto'
    try {
      const store = new SettingsStore(dataDir)
      if (store.exists()) {
        const s = store.read()
        mode = s.dependencyVolumesRepos[repo] ?? s.dependencyVolumes
      }
    } catch {
      // the service reports a bad settings file itself
    }
    return dependencyVolumesModeOf(mode)
  }
}

/**
 * `cortex guest prune [--repo DIR]`: remove the project environments' images and the dependency
 * volumes (of one repository, or all) from the engine named by DOCKER_HOST; lines go to `write`.
 * Resolves with the exit status (0 done, 1 when the engine cannot be reached).
 */
export async function guestPruneMain(opts: { repo?: string }, write: (line: string) => void): Promise<number> {
  try {
    const r = await pruneGuestCaches(new DockerGuestProvider().docker, opts.repo)
    for (const i of r.images) write(`removed image ${i}`)
    for (const v of r.volumes) write(`removed volume ${v}`)
    for (const k of r.kept) write(`kept ${k}`)
    write(`pruned: ${r.images.length} image${r.images.length === 1 ? '' : 's'}, ${r.volumes.length} volume${r.volumes.length === 1 ? '' : 's'}${r.kept.length ? `, ${r.kept.length} kept (in use)` : ''}`)
    return 0
  } catch (err) {
    write(`error: cannot reach the Docker engine (${(err as Error).message})`)
    return 1
  }
}

/**
 * Entry for `cortex mcp test NAME`: {@link probeMcpServer} with the session's folder policy checked
 * before a local server's guest starts on `opts.repo` (a remote server starts no guest).
 */
export function probeMcpServerMain(opts: Omit<Parameters<typeof probeMcpServer>[0], 'checkRepo'>): Promise<ProbeResult> {
  return probeMcpServer({ ...opts, checkRepo: (repo) => void checkRepoPolicy(repo, { dataDir: opts.home }) })
}
