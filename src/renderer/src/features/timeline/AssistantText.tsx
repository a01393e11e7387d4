/**
 * One assistant text row rendered as sanitized Markdown (see markdown.ts). Memoized on the text, so
 * while a message streams only its own row re-parses; finished rows never render again.
 */
import { memo, useDeferredValue, useMemo } from 'react'
import { renderMarkdown } from './markdown'

/** Model text as Markdown. */
export const AssistantText = memo(function AssistantText({ text }: { text: string }): React.JSX.Element {
  // while text streams in, React may render the newest text a little later rather than block a frame
  const shown = useDeferredValue(text)
  const html = useMemo(() => renderMarkdown(shown), [shown])
  return <div className="row assistant markdown" data-testid="assistant-text" dangerouslySetInnerHTML={{ __html: html }} />
})
