/**
 * A look at a user-named guest image before any guest starts from it, without running anything
 * from the image (`docker create` never started, `docker cp`, `docker rm`): an image built on the
 * musl C library (Alpine) cannot run the glibc Node builds Cortex brings or expects, so it is
 * refused with what to use instead; and whether the guest's PATH finds a `node` in it (if not,
 * Cortex adds its own in a derived image, derive-image.ts).
 */
import { CortexError } from '../../../shared/errors'
import { dockerQuery } from './run-command'

/** What the look found: built on musl; a `node` in one of the guest's PATH folders. */
export interface ImageLook {
  musl: boolean
  hasNode: boolean
}

/** Looks per image reference, for this process. */
const seen = new Map<string, Promise<ImageLook>>()

/** The guest's PATH folders (src/main/guest/container-spec.ts sets this PATH). */
const GUEST_PATH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']

/** The names in a tar stream listing whose entry is musl's dynamic loader (`lib/ld-musl-<arch>.so.1`). */
export function hasMuslLoader(tarNames: string[]): boolean {
  return tarNames.some((n) => /(^|\/)ld-musl-[^/]+\.so\.1$/.test(n))
}

async function look(image: string): Promise<ImageLook> {
  const names: string[] = []
  const created = await dockerQuery(['docker', 'create', '--network', 'none', '--label', 'dev.cortex.libc-probe=1', image, '/cortex-never-started'], (l) => names.push(l))
  const id = names.at(-1)?.trim()
  if (created.code !== 0 || !id) throw new Error(`docker create ${image} failed: ${created.tail.slice(-3).join(' | ')}`)
  try {
    const listing: string[] = []
    // /lib of the image as a tar stream, listed; a /lib that is a link (merged /usr) lists as one entry
    const r = await dockerQuery(['sh', '-c', 'docker cp "$1":/lib - | tar -t', 'cortex-libc-probe', id], (l) => listing.push(l))
    // a node in a PATH folder: the first bytes of its tar entry are enough (a link copies as a link)
    const found: string[] = []
    const script = 'for d in "$@"; do [ -n "$(docker cp "$0:$d/node" - 2>/dev/null | head -c 1)" ] && echo "$d"; done; true'
    await dockerQuery(['sh', '-c', script, id, ...GUEST_PATH_DIRS], (l) => found.push(l))
    return { musl: r.code === 0 && hasMuslLoader(listing), hasNode: found.some((l) => l.trim() !== '') }
  } finally {
    await dockerQuery(['docker', 'rm', '-f', id]).catch(() => undefined)
  }
}

/**
 * Refuse `image` when it is built on musl (Alpine); else resolve with what the look found (a look
 * that could not run finds no node: the image is then derived, which is only slower). The look is shared by concurrent starts and not
 * cancelled by a Stop (the caller races it; it takes well under a second); each docker call in it
 * ends at DOCKER_QUERY_DEADLINE_S, so a hung engine cannot keep it forever.
 * @throws CortexError `image_unavailable` naming the image, why, and what to use; a probe that
 *   cannot run (docker create failed) is not a refusal: the start goes on and fails or not on its own
 */
export async function assertGlibcImage(image: string): Promise<ImageLook> {
  let p = seen.get(image)
  if (!p) {
    p = look(image).catch(() => ({ musl: false, hasNode: false }))
    seen.set(image, p)
  }
  const found = await p
  if (found.musl) {
    seen.delete(image) // a fixed image under the same name is looked at again
    throw new CortexError(
      'image_unavailable',
      `guest image ${image} is built on the musl C library (Alpine): Cortex's guest agent needs a glibc-based image to run Node. ` +
        'Use a Debian- or Ubuntu-based variant of it (e.g. node:22-bookworm-slim, python:3.12-slim instead of *-alpine), or the default guest image (unset CORTEX_GUEST_IMAGE)'
    )
  }
  return found
}
