/**
 * Whether a user-named guest image can run Cortex's guest agent at all: an image built on the musl
 * C library (Alpine) cannot run the glibc Node builds Cortex brings or expects, so it is refused
 * before any guest starts, with what to use instead. Looks without running anything from the
 * image: `docker create` (never started), `docker cp <container>:/lib -`, `docker rm`.
 */
import { CortexError } from '../../../shared/errors'
import { runCommand } from './run-command'

/** Verdicts per image reference, for this process (an image's /lib does not change under a tag often enough to matter). */
const seen = new Map<string, Promise<boolean>>()

/** The names in a tar stream listing whose entry is musl's dynamic loader (`lib/ld-musl-<arch>.so.1`). */
export function hasMuslLoader(tarNames: string[]): boolean {
  return tarNames.some((n) => /(^|\/)ld-musl-[^/]+\.so\.1$/.test(n))
}

async function isMusl(image: string): Promise<boolean> {
  const names: string[] = []
  const created = await runCommand(['docker', 'create', '--network', 'none', '--label', 'dev.cortex.libc-probe=1', image, '/cortex-never-started'], (l) => names.push(l))
  const id = names.at(-1)?.trim()
  if (created.code !== 0 || !id) throw new Error(`docker create ${image} failed: ${created.tail.slice(-3).join(' | ')}`)
  try {
    const listing: string[] = []
    // /lib of the image as a tar stream, listed; a /lib that is a link (merged /usr) lists as one entry
    const r = await runCommand(['sh', '-c', 'docker cp "$1":/lib - | tar -t', 'cortex-libc-probe', id], (l) => listing.push(l))
    return r.code === 0 && hasMuslLoader(listing)
  } finally {
    await runCommand(['docker', 'rm', '-f', id]).catch(() => undefined)
  }
}

/**
 * Refuse `image` when it is built on musl (Alpine). The look is shared by concurrent starts and not
 * cancelled by a Stop (the caller races it; it takes well under a second).
 * @throws CortexError `image_unavailable` naming the image, why, and what to use; a probe that
 *   cannot run (docker create failed) is not a refusal: the start goes on and fails or not on its own
 */
export async function assertGlibcImage(image: string): Promise<void> {
  let p = seen.get(image)
  if (!p) {
    p = isMusl(image).catch(() => false)
    seen.set(image, p)
  }
  if (await p) {
    seen.delete(image) // a fixed image under the same name is looked at again
    throw new CortexError(
      'image_unavailable',
      `guest image ${image} is built on the musl C library (Alpine): Cortex's guest agent needs a glibc-based image to run Node. ` +
        'Use a Debian- or Ubuntu-based variant of it (e.g. node:22-bookworm-slim, python:3.12-slim instead of *-alpine), or the default guest image (unset CORTEX_GUEST_IMAGE)'
    )
  }
}
