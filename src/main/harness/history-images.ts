/**
 * Images in the model history (ADR 0025): the parts a stored image becomes in a request — an image
 * part for a vision-capable model, a text note otherwise or when its file is gone — and where a
 * tool's image goes for each provider's wire format.
 */
import type { ImagePart, TextPart, ToolResultPart } from 'ai'
import { imageLine, type ImageRef } from '../../shared/images'

/** What the history needs to turn image references into request parts. */
export interface HistoryImages {
  /** The bytes of stored image `sha256`; undefined when its file is gone. */
  load(sha256: string): Uint8Array | undefined
  /** Whether the model takes images (providers/vision.ts). */
  vision: boolean
  /**
   * Where a tool's image goes: `in-result` inside the tool result (Anthropic's tool_result image
   * block, OpenAI Responses' function_call_output input_image); `user-message` in a user message
   * right after the results (Chat Completions, whose tool messages many servers take only as text).
   */
  toolImages: 'in-result' | 'user-message'
}

/** A turn's images: read back for requests, and stored when a tool returns one (run-call.ts). */
export interface TurnImages extends HistoryImages {
  /**
   * Check and store an image's bytes once in the session's folder.
   * @throws CortexError('invalid_input') when they are not an accepted image or over a cap
   */
  put(bytes: Uint8Array, name: string): ImageRef
}

/** `in-result` unless the model speaks Chat Completions (`<name>.chat`). */
export function toolImagePlacement(provider: string): HistoryImages['toolImages'] {
  return provider.endsWith('.chat') ? 'user-message' : 'in-result'
}

/** The part of one image, or a text note saying why it is not sent. */
export function imagePart(ref: ImageRef, images: HistoryImages | undefined): ImagePart | TextPart {
  if (!images?.vision) return { type: 'text', text: `${imageLine(ref)} (not shown: the model in use does not take images)` }
  const bytes = images.load(ref.sha256)
  if (!bytes) return { type: 'text', text: `${imageLine(ref)} (not shown: its stored copy is missing from the session folder)` }
  return { type: 'image', image: bytes, mediaType: ref.mediaType }
}

/** A user message's content: its text, then its images (a note for any that cannot be sent). */
export function userContent(text: string, refs: readonly ImageRef[] | undefined, images: HistoryImages | undefined): string | Array<TextPart | ImagePart> {
  if (!refs || refs.length === 0) return text
  return [...(text ? [{ type: 'text' as const, text }] : []), ...refs.map((r) => imagePart(r, images))]
}

/**
 * A tool result with an image, placed `in-result`: its text and the image as one `content` output;
 * when the image cannot be sent, the text with the note.
 */
export function toolResultWithImage(part: ToolResultPart, text: string, ref: ImageRef, images: HistoryImages | undefined): ToolResultPart {
  const image = imagePart(ref, images)
  if (image.type === 'text') return { ...part, output: { type: 'text', value: `${text}\n${image.text}` } }
  return { ...part, output: { type: 'content', value: [{ type: 'text', text }, { type: 'file', mediaType: ref.mediaType, data: { type: 'data', data: image.image as Uint8Array } }] } }
}
