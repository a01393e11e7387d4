/**
 * One assistant text row rendered as sanitized Markdown (see markdown.ts). Memoized on the text, so
 * while a message streams only its own row re-parses; finished rows never render again.
 */
import { memo, useMemo } from 'react'
import { renderMarkdown } from './markdown'

/** Model text as Markdown. */
export const AssistantText = memo(function AssistantText({ text }: { text: string }): React.JSX.Element {
  const html = useMemo(() => renderMarkdown(text), [text])
  return <div className="row assistant markdown" data-testid="assistant-text" dangerouslySetInnerHTML={{ __html: html }} />
})
