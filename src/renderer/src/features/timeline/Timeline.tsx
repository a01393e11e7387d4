/**
 * The session timeline: user messages, streamed assistant text, tool rows, guest status changes,
 * mode switches, errors and turn ends, in event order. Sticks to the bottom while new rows arrive
 * unless the user scrolled up.
 */
import { memo, useEffect, useRef } from 'react'
import { useCurrentView } from '../../store/app-store'
import { turnFooter, type TimelineItem } from '../../store/reduce-event'
import { AssistantText } from './AssistantText'
import { ToolRow } from './ToolRow'
import { TurnChangesLink } from '../changes/TurnChangesLink'
import { ApprovalCard } from '../approvals/ApprovalCard'
import { ModelWaiting } from './ModelWaiting'
import { ContextMeter } from '../context/ContextMeter'

/** One row; memoized so a streaming delta re-renders only the row whose item changed. */
const Row = memo(function Row({ item }: { item: TimelineItem }): React.JSX.Element {
  switch (item.kind) {
    case 'user':
      return (
        <div className="row user" data-testid="user-message">
          {item.text}
        </div>
      )
    case 'assistant':
      return <AssistantText text={item.text} />
    case 'tool':
      return <ToolRow item={item} />
    case 'approval':
    case 'approval_rule':
      return <ApprovalCard item={item} />
    case 'guest':
      return (
        <div className="row meta" data-testid="guest-row" data-state={item.state}>
          guest: {item.state}
          {item.detail ? ` — ${item.detail}` : ''}
        </div>
      )
    case 'mode':
      return (
        <div className="row meta" data-testid="mode-row">
          mode: {item.mode}
        </div>
      )
    case 'sandbox':
      return (
        <div className="row meta" data-testid="sandbox-row">
          sandbox: {item.policy} — the guest restarts
        </div>
      )
    case 'host_warning':
      return (
        <div className="row error host-warning" data-testid="host-warning-row" role="alert">
          <strong>check before running tools on your machine:</strong> {item.message}
          <ul>
            {item.paths.map((p) => (
              <li key={p}>
                <code>{p}</code>
              </li>
            ))}
          </ul>
        </div>
      )
    case 'error':
      return (
        <div className="row error" data-testid="error-row" data-code={item.code}>
          <strong>{item.code}</strong> {item.message}
        </div>
      )
    case 'turn_end':
      return (
        <div className={`row turn-end reason-${item.reason}`} data-testid="turn-end" data-reason={item.reason}>
          turn {item.reason}
          {item.usage && <span data-testid="turn-usage"> · {turnFooter(item.usage)}</span>}
          <TurnChangesLink turnId={item.turnId} />
        </div>
      )
    case 'notice':
      return (
        <div className={`row meta notice${item.warn ? ' warn' : ''}`} data-testid="notice-row">
          {item.text}
        </div>
      )
  }
})

/** The scrolling list of the current session's rows. */
export function Timeline(): React.JSX.Element {
  const view = useCurrentView()
  const ref = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const items = view?.items

  useEffect(() => {
    const el = ref.current
    if (el && stick.current) el.scrollTop = el.scrollHeight
  }, [items])

  return (
    <div
      className="timeline"
      data-testid="timeline"
      ref={ref}
      onScroll={(e) => {
        const el = e.currentTarget
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
      }}
    >
      {!view && <div className="empty">Open a repository to start a session.</div>}
      {/* rows a compaction summarised for the model stay visible, marked (features/context) */}
      {items && view?.compactedBefore ? (
        <div className="compacted" data-testid="compacted-rows" title="compacted: the model gets a summary of these rows">
          {items.slice(0, view.compactedBefore).map((item) => <Row key={item.id} item={item} />)}
        </div>
      ) : null}
      {items?.slice(view?.compactedBefore ?? 0).map((item) => <Row key={item.id} item={item} />)}
      <ModelWaiting />
      <ContextMeter />
    </div>
  )
}
