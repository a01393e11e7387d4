/**
 * Thumbnails of a message's or a tool's images in the timeline: each fetched once by hash from
 * the session's folder (the `sessionImage` request) and kept as a data URL for the page's life;
 * until it arrives, or when it cannot, the row shows the `[image: name WxH, N KB]` line instead.
 */
import { useEffect, useState } from 'react'
import { imageLine, type ImageRef } from '../../../../shared/images'
import { useAppStore } from '../../store/app-store'

/** Data URLs by sha256, shared by every row (an image is fetched once per page). */
const cache = new Map<string, Promise<string>>()

/** One image: its thumbnail once fetched, its line meanwhile or on failure. */
function Thumb({ sessionId, image }: { sessionId: string; image: ImageRef }): React.JSX.Element {
  const api = useAppStore((s) => s.handle.api)
  const [url, setUrl] = useState<string | null>(null)
  const label = imageLine(image)
  useEffect(() => {
    let live = true
    let got = cache.get(image.sha256)
    if (!got) {
      got = api.sessionImage({ sessionId, sha256: image.sha256 }).then((r) => `data:${r.mediaType};base64,${r.data}`)
      got.catch(() => cache.delete(image.sha256))
      cache.set(image.sha256, got)
    }
    got.then((u) => live && setUrl(u), () => undefined)
    return () => {
      live = false
    }
  }, [api, sessionId, image.sha256])
  return (
    <figure className="image-thumb" data-testid="image-thumb" title={label}>
      {url ? <img src={url} alt={label} /> : <span className="image-label">{label}</span>}
      <figcaption>{label}</figcaption>
    </figure>
  )
}

/** The thumbnails of `images` of session `sessionId` (nothing for none). */
export function ImageThumbs({ sessionId, images }: { sessionId: string | null; images?: readonly ImageRef[] }): React.JSX.Element | null {
  if (!sessionId || !images || images.length === 0) return null
  return (
    <div className="image-thumbs">
      {images.map((image) => (
        <Thumb key={image.sha256} sessionId={sessionId} image={image} />
      ))}
    </div>
  )
}
