/**
 * Images in a session (issue 19 item 6, ADR 0025): the reference a log line carries (never the
 * bytes), the image part of a `user_message` operation, the caps, and the one line every text front
 * end shows for an image.
 */
import { z } from 'zod'

/** Media types Cortex accepts, detected from the bytes (magic numbers), never from a file name. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
/** One of {@link IMAGE_MEDIA_TYPES}. */
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number]

/** Largest image accepted, in bytes (5 MiB: Anthropic's per-image limit, the strictest provider's). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024
/** Largest width or height accepted, in pixels (Anthropic refuses larger; Cortex does not resize). */
export const MAX_IMAGE_SIDE = 8000
/** Most images one message may carry. */
export const MAX_IMAGES_PER_MESSAGE = 8
/** Base64 characters of {@link MAX_IMAGE_BYTES}, the longest `data` accepted in an operation. */
export const MAX_IMAGE_BASE64_CHARS = Math.ceil(MAX_IMAGE_BYTES / 3) * 4

/** An image's bytes as checked (src/main/tools/image-check.ts): its type and size in pixels. */
export interface CheckedImage {
  mediaType: ImageMediaType
  width: number
  height: number
}

/**
 * An image stored once in the session's folder (`images/<sha256>`), as events carry it: its
 * content hash (hex), media type, size in pixels and bytes, and a display name (a file name or
 * "pasted image"). The bytes are read back by hash when a request is built.
 */
export const ImageRefSchema = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  mediaType: z.enum(IMAGE_MEDIA_TYPES),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  bytes: z.number().int().positive(),
  name: z.string().max(256)
})
/** See {@link ImageRefSchema}. */
export type ImageRef = z.infer<typeof ImageRefSchema>

/**
 * An image part of a `user_message` operation: either the bytes (base64, at most
 * {@link MAX_IMAGE_BYTES} decoded; `mediaType` optional and checked against the bytes) or a
 * reference to an image this session already stored (`ref`: its sha256).
 */
export const ImageInputSchema = z.union([
  z.object({
    data: z.string().min(1).max(MAX_IMAGE_BASE64_CHARS, `an image may have at most ${imageSizeText(MAX_IMAGE_BYTES)} (Cortex does not resize: send a smaller or compressed image)`),
    mediaType: z.string().max(100).optional(),
    name: z.string().max(256).optional()
  }),
  z.object({ ref: z.string().regex(/^[0-9a-f]{64}$/, 'ref is the sha256 (64 hex digits) of an image stored in this session'), name: z.string().max(256).optional() })
])
/** See {@link ImageInputSchema}. */
export type ImageInput = z.infer<typeof ImageInputSchema>

/** The images of one message: at most {@link MAX_IMAGES_PER_MESSAGE}. */
export const ImageInputsSchema = z.array(ImageInputSchema).max(MAX_IMAGES_PER_MESSAGE, `a message may carry at most ${MAX_IMAGES_PER_MESSAGE} images`)

/** `1.2 MB`, `340 KB`, `12 B`: a size for people (1 KB = 1024 B). */
export function imageSizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** The line text front ends show for an image: `[image: name WxH, N KB]`. */
export function imageLine(ref: Pick<ImageRef, 'name' | 'width' | 'height' | 'bytes'>): string {
  return `[image: ${ref.name} ${ref.width}x${ref.height}, ${imageSizeText(ref.bytes)}]`
}
