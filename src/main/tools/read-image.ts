/**
 * read_file's image path (ADR 0025): a file whose first bytes are PNG, JPEG, GIF or WebP is read
 * whole (at most MAX_IMAGE_BYTES) and returned as an image the harness stores and sends to a
 * vision-capable model; its caps are model-fixable errors that state the limit.
 */
import { CortexError } from '../../shared/errors'
import { MAX_IMAGE_BYTES, imageSizeText, type ImageMediaType } from '../../shared/images'
import type { ReadResult } from '../../shared/guest-protocol'
import { checkImage } from './image-check'
import { rethrowGuestError } from './guest-errors'
import { fromBase64 } from './text'
import { ToolError, type ToolContext, type ToolResult } from './tool'

/** What read_file found at the start of a file: an image of `mediaType`, `size` bytes long. */
export interface ImageFound {
  image: ImageMediaType
  size: number
}

/** Bytes of one read call for an image. */
const IMAGE_CHUNK_BYTES = 1024 * 1024

/**
 * Read image file `real` (shown as `display`) and return it with a one-line text.
 * @throws ToolError when it is over MAX_IMAGE_BYTES, changed size while read, or fails the
 *   image checks (unreadable size, over MAX_IMAGE_SIDE pixels)
 */
export async function readImage(ctx: ToolContext, real: string, display: string, found: ImageFound): Promise<ToolResult> {
  const kind = found.image.slice('image/'.length).toUpperCase()
  if (found.size > MAX_IMAGE_BYTES) {
    throw new ToolError(`${display} is a ${kind} image of ${imageSizeText(found.size)}; read_file returns images of at most ${imageSizeText(MAX_IMAGE_BYTES)}. Use bash to inspect it (e.g. file ${display}).`)
  }
  const bytes = new Uint8Array(found.size)
  let pos = 0
  while (pos < found.size) {
    ctx.signal.throwIfAborted()
    const chunk = (await ctx.guest
      .call({ op: 'read', path: real, offset: pos, maxBytes: Math.min(IMAGE_CHUNK_BYTES, found.size - pos) }, { signal: ctx.signal })
      .catch((err: unknown) => rethrowGuestError(err, display))) as ReadResult
    const got = fromBase64(chunk.dataB64)
    if (got.length === 0 || chunk.size !== found.size) throw new ToolError(`${display} changed while it was read (${imageSizeText(found.size)} at first, ${imageSizeText(chunk.size)} now); read it again.`)
    bytes.set(got.subarray(0, found.size - pos), pos)
    pos += got.length
  }
  let checked
  try {
    checked = checkImage(bytes, display)
  } catch (err) {
    if (err instanceof CortexError) throw new ToolError(err.message)
    throw err
  }
  return {
    output: `${display}: ${kind} image, ${checked.width}x${checked.height} pixels, ${imageSizeText(bytes.length)}.`,
    image: { bytes, name: display }
  }
}
