/**
 * One assistant text row rendered as sanitized Markdown (see markdown.ts). Memoized on the text, so
 * while a message streams only its own row re-parses, and at most every STREAM_RENDER_MS (the
 * parse and the layout of a long streamed message each frame are what cost): the newest text is
 * always shown within that time. Finished rows never render again.
 */
import { memo, useEffect, useMemo, useRef, useState } from 'react'
import { renderMarkdown } from './markdown'

/** Least time (ms) between two Markdown renders of a row whose text is still growing. */
export const STREAM_RENDER_MS = 80

/** `value`, updated at most every `ms` (the first value and a value after a quiet `ms` at once). */
function useThrottled(value: string, ms: number): string {
  const [shown, setShown] = useState(value)
  const last = useRef(0)
  useEffect(() => {
    if (value === shown) return
    const wait = last.current + ms - Date.now()
    const apply = (): void => {
      last.current = Date.now()
      setShown(value)
    }
    if (wait <= 0) return apply()
    const timer = setTimeout(apply, wait)
    return () => clearTimeout(timer)
  }, [value, shown, ms])
  return shown
}

/** Model text as Markdown; `done` (the message's step ended) shows the final text at once. */
export const AssistantText = memo(function AssistantText({ text, done = false }: { text: string; done?: boolean }): React.JSX.Element {
  const throttled = useThrottled(text, STREAM_RENDER_MS)
  const shown = done ? text : throttled
  const html = useMemo(() => renderMarkdown(shown), [shown])
  return <div className="row assistant markdown" data-testid="assistant-text" dangerouslySetInnerHTML={{ __html: html }} />
})
