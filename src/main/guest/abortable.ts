/**
 * Making the steps of a guest start abortable by the start's AbortSignal (a Stop), without waiting
 * for a step that cannot itself be cancelled: {@link raceAbort} rejects at once and hands a value
 * that arrives late to a cleanup. Also the image step of a
 * start: a missing default image is built in the background, and an aborted start stops waiting
 * for the build without cancelling it (ADR 0008).
 */
import { CortexError } from '../../shared/errors'
import { raceDeadline } from '../../shared/deadline'
import { abortError } from './agent-client'
import { statusOf, throttleBuildProgress } from './docker-util'
import type { GuestProgress } from './guest'
import { deriveGuestImage } from './environment/derive-image'
import { assertGlibcImage } from './environment/libc-check'
import { guestRecipeDir } from './paths'
import { ensureGuestImage, guestImageTag } from './image'

/**
 * `p`, unless `signal` aborts first: then rejects with an AbortError at once, and, if `p` resolves
 * later, passes its value to `onLate` (to remove what it created). A signal aborted already rejects
 * at once too. Without a signal it is `p`.
 */
export async function raceAbort<T>(p: Promise<T>, signal: AbortSignal | undefined, onLate?: (value: T) => void): Promise<T> {
  if (!signal) return p
  const r = await raceDeadline(p, { signal, ...(onLate ? { onLate } : {}) })
  if (r.kind === 'value') return r.value
  throw abortError()
}

/** The engine call the image step needs (a dockerode client satisfies it). */
export interface ImageEngine {
  getImage(name: string): { inspect(): Promise<unknown> }
}

/** Options of {@link ensureStartImage}. */
export interface StartImageOptions {
  /** Build the default image when missing (default true). */
  buildImage?: boolean
  /** Recipe folder of the default image (default resources/guest; tests use a recipe of their own). */
  recipeDir?: string
  signal?: AbortSignal
}

/**
 * Make sure `image` exists for a start and resolve with the image to create the guest from:
 * the default image itself (a missing one is built with progress, `building_image`, the wait
 * abortable by `opts.signal` while the build goes on for the next start; concurrent starts share
 * it, image.ts), or for a user's image its derived image with Cortex's Node runtime (built once).
 * @throws CortexError `docker_unavailable` (inspect failed), `image_unavailable` (a missing image
 *   that is not the default or building is off, a failed build, a musl image); AbortError on abort
 */
export async function ensureStartImage(engine: ImageEngine, image: string, progress: GuestProgress, opts: StartImageOptions = {}): Promise<string> {
  try {
    await raceAbort(engine.getImage(image).inspect(), opts.signal)
    if (image === guestImageTag(opts.recipeDir)) return image
    // a user's image: one built on musl (Alpine) cannot run the agent and is refused with what to
    // use; else, when it has no node, Cortex's Node runtime is added once in an image derived from it (ADR 0030)
    if ((await raceAbort(assertGlibcImage(image), opts.signal)).hasNode) return image
    const derived = deriveGuestImage(image, opts.recipeDir ?? guestRecipeDir(), throttleBuildProgress(quietWhenAborted(progress, opts.signal)))
    derived.catch(() => undefined) // an abandoned build is reported to the next start that waits for it
    return await raceAbort(derived, opts.signal)
  } catch (err) {
    if (err instanceof CortexError) throw err
    if ((err as Error).name === 'AbortError') throw err
    if (statusOf(err) !== 404) throw new CortexError('docker_unavailable', `Docker engine error inspecting ${image}: ${(err as Error).message}`, { cause: err })
  }
  const defaultImage = guestImageTag(opts.recipeDir)
  if (opts.buildImage === false || image !== defaultImage) {
    throw new CortexError('image_unavailable', `guest image ${image} is missing${image === defaultImage ? '; build it with: cortex guest build' : ' (only the default guest image can be built here)'}`)
  }
  progress('building_image', `building ${image}`)
  const build = ensureGuestImage(throttleBuildProgress(quietWhenAborted(progress, opts.signal)), { tag: image, ...(opts.recipeDir ? { recipeDir: opts.recipeDir } : {}) })
  // an abandoned build's outcome is reported to the next start that waits for it
  build.catch(() => undefined)
  await raceAbort(build, opts.signal)
  return image
}

/** `progress`, quiet once `signal` aborts: a build's later lines are no longer that start's. */
function quietWhenAborted(progress: GuestProgress, signal?: AbortSignal): GuestProgress {
  return (state, detail) => {
    if (!signal?.aborted) progress(state, detail)
  }
}
