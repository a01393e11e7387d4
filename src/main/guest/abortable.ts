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
import { assertGlibcImage } from './environment/libc-check'
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
 * Make sure `image` exists for a start: present → resolves; missing default image → built with
 * progress (`building_image`), the wait abortable by `opts.signal` while the build itself goes on
 * for the next start (concurrent starts share it, image.ts).
 * @throws CortexError `docker_unavailable` (inspect failed), `image_unavailable` (a missing image
 *   that is not the default or building is off, or a failed build); AbortError on abort
 */
export async function ensureStartImage(engine: ImageEngine, image: string, progress: GuestProgress, opts: StartImageOptions = {}): Promise<void> {
  try {
    await raceAbort(engine.getImage(image).inspect(), opts.signal)
    // a user's image built on musl (Alpine) cannot run the agent: refused with what to use (ADR 0030)
    if (image !== guestImageTag(opts.recipeDir)) await raceAbort(assertGlibcImage(image), opts.signal)
    return
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
  // progress goes quiet once this start is aborted: the build's lines are no longer this start's
  const quiet: GuestProgress = (state, detail) => {
    if (!opts.signal?.aborted) progress(state, detail)
  }
  const build = ensureGuestImage(throttleBuildProgress(quiet), { tag: image, ...(opts.recipeDir ? { recipeDir: opts.recipeDir } : {}) })
  // an abandoned build's outcome is reported to the next start that waits for it
  build.catch(() => undefined)
  await raceAbort(build, opts.signal)
}
