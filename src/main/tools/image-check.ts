/**
 * Checking an image's bytes before Cortex stores or sends it: the type from its magic numbers (never
 * a file name), its size in pixels (image-size; no decoding, no native code) and the caps of
 * src/shared/images.ts. Nothing is resized: an image over a cap is refused with the limit stated.
 */
import { imageSize } from 'image-size'
import { CortexError } from '../../shared/errors'
import { MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, imageSizeText, type CheckedImage, type ImageMediaType } from '../../shared/images'

/**
 * The image type the first bytes announce: PNG, JPEG, GIF (87a/89a) or WebP (RIFF….WEBP); null for
 * anything else. 12 bytes are enough.
 */
export function sniffImage(head: Uint8Array): ImageMediaType | null {
  const at = (i: number, bytes: number[]): boolean => bytes.every((b, k) => head[i + k] === b)
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (at(0, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (at(0, [0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return 'image/gif'
  if (at(0, [0x52, 0x49, 0x46, 0x46]) && at(8, [0x57, 0x45, 0x42, 0x50])) return 'image/webp'
  return null
}

/**
 * Check `bytes` as an image called `name` (for messages): a known type by magic numbers, at most
 * MAX_IMAGE_BYTES, readable dimensions, neither side over MAX_IMAGE_SIDE pixels.
 * @throws CortexError('invalid_input') saying which check failed and the limit
 */
export function checkImage(bytes: Uint8Array, name: string): CheckedImage {
  if (bytes.length > MAX_IMAGE_BYTES) {
    throw new CortexError('invalid_input', `${name} is ${imageSizeText(bytes.length)}; an image may have at most ${imageSizeText(MAX_IMAGE_BYTES)} (Cortex does not resize: send a smaller or compressed image)`)
  }
  const mediaType = sniffImage(bytes)
  if (!mediaType) throw new CortexError('invalid_input', `${name} is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise)`)
  let size: { width?: number; height?: number }
  try {
    size = imageSize(bytes)
  } catch (err) {
    throw new CortexError('invalid_input', `${name} starts like ${mediaType} but is truncated or damaged (${bytes.length} bytes; its size cannot be read: ${err instanceof Error ? err.message : String(err)})`)
  }
  const { width, height } = size
  if (!width || !height) throw new CortexError('invalid_input', `${name} looks like ${mediaType} but has no width or height`)
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw new CortexError('invalid_input', `${name} is ${width}x${height} pixels; an image may be at most ${MAX_IMAGE_SIDE} pixels on each side (Cortex does not resize: scale it down first)`)
  }
  return { mediaType, width, height }
}
