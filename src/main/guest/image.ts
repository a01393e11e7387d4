/**
 * The guest image: its tag (computed here and nowhere else, from the recipe in resources/guest/),
 * existence check, and building a missing image with visible progress. Talks to Docker through the
 * `docker` CLI (the build script needs it anyway); only docker-guest.ts uses dockerode.
 */
import { CortexError } from '../../shared/errors'
import type { PingResult, SpawnResult } from '../../shared/guest-protocol'
import { errorFields, type Logger } from '../../shared/logger-types'
import { buildGuestImage, dockerImageExists, type BuilderChoice } from './environment/builders'
import { GUEST_IMAGE_REPO, GUEST_RECIPE_FILES, recipeHash } from './environment/recipe'
import type { Guest } from './guest'
import { guestRecipeDir } from './paths'
import { releaseBuildLock, tryTakeBuildLock } from './build-lock'

export { GUEST_IMAGE_REPO, GUEST_RECIPE_FILES } from './environment/recipe'
/** Tools the guest agent and the tools need in a user-named image, besides `node` ≥ 18. */
export const REQUIRED_GUEST_COMMANDS = ['bash', 'rg', 'git'] as const

/**
 * `cortex-guest:<first 12 hex of sha256 over the recipe files>`; the hash covers each file's name,
 * a NUL, its bytes (`<absent>` for a missing one) and a NUL, in {@link GUEST_RECIPE_FILES} order.
 * @param recipeDir defaults to `<package root>/resources/guest`
 */
export function guestImageTag(recipeDir: string = guestRecipeDir()): string {
  return `${GUEST_IMAGE_REPO}:${recipeHash(recipeDir, GUEST_RECIPE_FILES)}`
}

/**
 * Whether the Docker engine has image `tag`. Resolves false when it does not.
 * @throws CortexError `docker_unavailable` when the docker CLI cannot run.
 */
export async function imageExists(tag: string = guestImageTag()): Promise<boolean> {
  return dockerImageExists(tag)
}

/** Outcome of {@link ensureGuestImage}: the tag, whether it was built now, and how long that took (ms). */
export interface EnsureImageResult {
  tag: string
  built: boolean
  durationMs: number
  /** The builder that made it (only when `built`). */
  builder?: BuilderChoice
}

const inFlight = new Map<string, Promise<EnsureImageResult>>()

async function buildOnce(tag: string, recipeDir: string, onProgress: (line: string) => void, signal?: AbortSignal): Promise<EnsureImageResult> {
  const started = Date.now()
  // Cross-process lock (e.g. parallel test workers): one builds, the others wait for the image.
  for (;;) {
    if (await imageExists(tag)) return { tag, built: false, durationMs: Date.now() - started }
    if (tryTakeBuildLock(tag)) break
    // another live process holds the build lock: wait for its image (a dead holder's lock is taken over)
    onProgress(`waiting for another build of ${tag} to finish`)
    await new Promise((r) => setTimeout(r, 2000))
    if (signal?.aborted) throw new CortexError('image_unavailable', `building ${tag} was cancelled`)
  }
  try {
    if (await imageExists(tag)) return { tag, built: false, durationMs: Date.now() - started }
    onProgress(`==> building guest image ${tag} (a few minutes the first time)`)
    const builder = await buildGuestImage(tag, recipeDir, onProgress, signal)
    if (!(await imageExists(tag))) throw new CortexError('image_unavailable', `building guest image ${tag} ended without the image (builder: ${builder.kind})`)
    return { tag, built: true, durationMs: Date.now() - started, builder }
  } finally {
    releaseBuildLock(tag)
  }
}

/**
 * Make sure the guest image exists: resolves at once when `tag` is present (never rebuilds an
 * existing tag), else builds it (environment/builders.ts: the builder's base, then Cortex's layer),
 * passing each output line to `onProgress`; the first says which builder and why.
 * Concurrent calls share one build (in-process) or wait on a lock file (across processes).
 * @param onProgress receives progress lines (builder output, `==> step` lines)
 * @param opts.tag defaults to {@link guestImageTag}; opts.signal cancels a build
 * @throws CortexError `image_unavailable` when the build fails, `docker_unavailable` without a docker CLI.
 */
export function ensureGuestImage(
  onProgress: (line: string) => void = () => undefined,
  opts: { tag?: string; recipeDir?: string; signal?: AbortSignal } = {}
): Promise<EnsureImageResult> {
  const recipeDir = opts.recipeDir ?? guestRecipeDir()
  const tag = opts.tag ?? guestImageTag(recipeDir)
  let p = inFlight.get(tag)
  if (!p) {
    p = buildOnce(tag, recipeDir, onProgress, opts.signal).finally(() => inFlight.delete(tag))
    inFlight.set(tag, p)
  }
  return p
}

/**
 * Entry for `cortex guest build` (and CI): ensures the image, writing progress lines to `write`.
 * Resolves with the process exit code: 0 when the image exists or was built, 1 on failure.
 */
export async function guestBuildMain(write: (line: string) => void): Promise<number> {
  try {
    const r = await ensureGuestImage(write)
    write(r.built ? `built ${r.tag} in ${(r.durationMs / 1000).toFixed(1)} s with the ${r.builder?.kind} builder` : `${r.tag} already present`)
    return 0
  } catch (err) {
    write(`error: ${(err as Error).message}`)
    return 1
  }
}

/**
 * Check that a user-named image, running as `guest`, has node ≥ 18 and {@link REQUIRED_GUEST_COMMANDS}
 * (one ping and one `sh -c` of at most 10 s in `repo`).
 * @throws CortexError `image_unavailable` naming what is missing
 */
export async function probeGuestImage(guest: Guest, image: string, repo: string, log: Logger): Promise<void> {
  const missing: string[] = []
  const ping = (await guest.call({ op: 'ping' })) as PingResult
  const major = Number(/^v(\d+)/.exec(ping.node)?.[1] ?? 0)
  if (major < 18) missing.push(`node >= 18 (found ${ping.node})`)
  const script = `for c in ${REQUIRED_GUEST_COMMANDS.join(' ')}; do command -v "$c" >/dev/null 2>&1 || printf '%s\\n' "$c"; done`
  let r: SpawnResult
  try {
    r = await guest.spawn({ argv: ['sh', '-c', script], cwd: repo, timeoutMs: 10_000 })
    missing.push(...r.stdout.split('\n').filter(Boolean))
  } catch (err) {
    missing.push('sh')
    log.debug('image probe could not run sh', { image, ...errorFields(err) })
  }
  if (missing.length) {
    throw new CortexError('image_unavailable', `guest image ${image} lacks what the guest needs: ${missing.join(', ')}; add them to the image or use the default image`)
  }
}
