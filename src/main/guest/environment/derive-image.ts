/**
 * A guest from a user's own image (CORTEX_GUEST_IMAGE): a small image derived locally FROM it
 * (resources/guest/Dockerfile.derive, built with network none) that adds Cortex's Node runtime, so an
 * image with no Node serves as a guest; its own node, when the guest's PATH finds one, is kept.
 * Tagged `cortex-derived:<hash of the image id and the recipe>`, built once, reused after.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CortexError } from '../../../shared/errors'
import { buildCortexLayer, dockerImageExists } from './builders'
import { dockerQuery } from './run-command'

/** Image repository of derived guests. */
export const DERIVED_IMAGE_REPO = 'cortex-derived'

/** Builds in progress by tag: the shared build and the progress listeners of every start waiting on it. */
const builds = new Map<string, { promise: Promise<string>; listeners: Set<(l: string) => void> }>()

/**
 * `cortex-derived:<12 hex>` for `image`: sha256 over its image id, Dockerfile.derive and toolchains.json.
 * @throws CortexError `image_unavailable` when the image cannot be inspected; `docker_unavailable`
 *   when the engine does not answer by DOCKER_QUERY_DEADLINE_S
 */
export async function derivedImageTag(image: string, recipeDir: string): Promise<string> {
  const out: string[] = []
  const r = await dockerQuery(['docker', 'image', 'inspect', '--format', '{{.Id}}', image], (l) => out.push(l))
  const id = out.join('').trim()
  if (!r || r.code !== 0 || !id) throw new CortexError('image_unavailable', `cannot inspect guest image ${image}`)
  const h = createHash('sha256').update(id + '\0')
  try {
    for (const f of ['Dockerfile.derive', 'toolchains.json']) h.update(readFileSync(join(recipeDir, f))).update('\0')
  } catch (err) {
    throw new CortexError('image_unavailable', `cannot read the recipe to derive a guest from ${image}: ${(err as Error).message}`, { cause: err })
  }
  return `${DERIVED_IMAGE_REPO}:${h.digest('hex').slice(0, 12)}`
}

/**
 * The image to start for a user's `image`: its derived image, built first when missing (progress
 * lines to `onProgress`). Concurrent calls for one image share the build, and each gets its progress.
 * @throws CortexError `image_unavailable` when deriving fails (e.g. the image has no /bin/sh)
 */
export async function deriveGuestImage(image: string, recipeDir: string, onProgress: (l: string) => void): Promise<string> {
  const tag = await derivedImageTag(image, recipeDir)
  if (await dockerImageExists(tag)) return tag
  let build = builds.get(tag)
  if (!build) {
    const listeners = new Set<(l: string) => void>()
    const promise = (async () => {
      try {
        await buildCortexLayer(recipeDir, image, tag, (l) => listeners.forEach((f) => f(l)), undefined, 'Dockerfile.derive')
      } catch (err) {
        throw new CortexError('image_unavailable', `could not add Cortex's runtime to guest image ${image}: ${(err as Error).message}`, { cause: err })
      }
      return tag
    })().finally(() => builds.delete(tag))
    build = { promise, listeners }
    builds.set(tag, build)
  }
  // every waiting start (a session's guest and its checkpoint guest) shows the build's progress
  build.listeners.add(onProgress)
  onProgress(`==> adding Cortex's Node runtime to ${image} -> ${tag} (once per image)`)
  try {
    return await build.promise
  } finally {
    build.listeners.delete(onProgress)
  }
}
