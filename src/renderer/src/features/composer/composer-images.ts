/**
 * Images pasted into or dropped on the composer, held until the message is sent: each read as a
 * data URL (its thumbnail, and the base64 the `user_message` op carries). The caps are checked
 * here first so the user hears at once (the session checks again, by the bytes, and refuses with
 * a clear error what gets past).
 */
import { useCallback, useState } from 'react'
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, MAX_IMAGES_PER_MESSAGE, imageSizeText, type ImageInput } from '../../../../shared/images'

/** An image waiting in the composer: the op's part and its data URL for the thumbnail. */
export interface PendingImage {
  input: ImageInput & { data: string; name: string }
  url: string
  bytes: number
}

/** Whether `file` is an image type Cortex accepts (by the browser's type; the session checks the bytes). */
export function isAcceptedImage(file: { type: string }): boolean {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(file.type)
}

/** Read `file` as a data URL. */
function readDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`))
    reader.readAsDataURL(file)
  })
}

/** The composer's pending images and what adds, removes and clears them; `error` says why one was refused. */
export function useComposerImages(): {
  images: PendingImage[]
  error: string | null
  add(files: ArrayLike<File>): boolean
  remove(index: number): void
  clear(): void
} {
  const [images, setImages] = useState<PendingImage[]>([])
  const [error, setError] = useState<string | null>(null)
  const add = useCallback((files: ArrayLike<File>): boolean => {
    const list = Array.from(files).filter(isAcceptedImage)
    if (list.length === 0) return false
    setError(null)
    for (const file of list) {
      const name = file.name || 'pasted image'
      if (file.size > MAX_IMAGE_BYTES) {
        setError(`${name} is ${imageSizeText(file.size)}; an image may have at most ${imageSizeText(MAX_IMAGE_BYTES)}`)
        continue
      }
      readDataUrl(file).then(
        (url) =>
          setImages((now) => {
            if (now.length >= MAX_IMAGES_PER_MESSAGE) {
              setError(`a message may carry at most ${MAX_IMAGES_PER_MESSAGE} images`)
              return now
            }
            const data = url.slice(url.indexOf(',') + 1)
            return [...now, { input: { data, name, mediaType: file.type }, url, bytes: file.size }]
          }),
        (err: unknown) => setError(err instanceof Error ? err.message : String(err))
      )
    }
    return true
  }, [])
  const remove = useCallback((index: number) => setImages((now) => now.filter((_, i) => i !== index)), [])
  const clear = useCallback(() => {
    setImages([])
    setError(null)
  }, [])
  return { images, error, add, remove, clear }
}
