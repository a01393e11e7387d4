/**
 * `cortex guest prune`: removes what project environments and dependency volumes leave on the
 * Docker engine — the images made for repositories (setup caches `cortex-env:`, environment bases
 * `cortex-envbase:`, built bases `cortex-project:`, all labelled dev.cortex.env-repo), the
 * dependency volumes (dev.cortex.deps-repo) and leftover HOME volumes of environment guests
 * (dev.cortex.home-volume). Whatever a container still uses is kept (the engine refuses); the next
 * session builds or fills again what it needs (docs/adr/0042).
 */
import { LABEL_HOME_VOLUME } from './container-spec'
import { LABEL_DEPS_REPO } from './dependency-volumes'
import { statusOf } from './docker-util'
import { ENV_BASE_REPO, ENV_CACHE_REPO, LABEL_ENV_REPO, PROJECT_IMAGE_REPO } from './environment/project-image'

/** The engine calls made here (a dockerode client satisfies it). */
export interface PruneEngine {
  listImages(opts: { filters: { label: string[] } }): Promise<Array<{ Id: string; RepoTags?: string[] | null; Labels?: Record<string, string> | null }>>
  getImage(ref: string): { remove(): Promise<unknown> }
  listVolumes(opts: { filters: { label: string[] } }): Promise<{ Volumes?: Array<{ Name: string; Labels?: Record<string, string> | null }> | null }>
  getVolume(name: string): { remove(): Promise<unknown> }
}

/** What {@link pruneGuestCaches} removed and kept (names and tags), and why each kept one stayed. */
export interface PruneResult {
  images: string[]
  volumes: string[]
  kept: string[]
}

/** Order of removal: an image's children first (a cache is made from an environment base, which is made from a built base). */
const ORDER = [ENV_CACHE_REPO, ENV_BASE_REPO, PROJECT_IMAGE_REPO]

/**
 * Remove the environment images and dependency volumes of `repo` (absolute host path), or of every
 * repository when undefined; what a container uses is kept and listed in `kept`.
 * @throws the engine's error when it cannot list (the caller says Docker is unavailable)
 */
export async function pruneGuestCaches(docker: PruneEngine, repo?: string): Promise<PruneResult> {
  const out: PruneResult = { images: [], volumes: [], kept: [] }
  const images = await docker.listImages({ filters: { label: [repo ? `${LABEL_ENV_REPO}=${repo}` : LABEL_ENV_REPO] } })
  const refs = images.flatMap((i) => {
    const tags = (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>')
    return tags.length ? tags : [i.Id]
  })
  const rank = (ref: string): number => {
    const k = ORDER.findIndex((r) => ref.startsWith(`${r}:`))
    return k < 0 ? ORDER.length : k
  }
  for (const ref of [...new Set(refs)].sort((a, b) => rank(a) - rank(b))) {
    try {
      await docker.getImage(ref).remove()
      out.images.push(ref)
    } catch (err) {
      if (statusOf(err) !== 404) out.kept.push(`${ref} (${(err as Error).message.split('\n')[0]})`)
    }
  }
  const volumes = [
    ...((await docker.listVolumes({ filters: { label: [repo ? `${LABEL_DEPS_REPO}=${repo}` : LABEL_DEPS_REPO] } })).Volumes ?? []),
    ...(repo ? [] : ((await docker.listVolumes({ filters: { label: [`${LABEL_HOME_VOLUME}=1`] } })).Volumes ?? []))
  ]
  for (const v of volumes) {
    try {
      await docker.getVolume(v.Name).remove()
      out.volumes.push(v.Name)
    } catch (err) {
      if (statusOf(err) !== 404) out.kept.push(`${v.Name} (${statusOf(err) === 409 ? 'in use' : (err as Error).message.split('\n')[0]})`)
    }
  }
  return out
}
