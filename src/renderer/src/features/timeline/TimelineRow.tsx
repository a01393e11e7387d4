/**
 * One timeline row by kind: user messages (with their images' thumbnails), streamed assistant text (Markdown), tool rows, approval
 * cards, the model's reasoning (collapsed, with its duration), hooks' runs, guest status changes, mode and sandbox switches, host warnings, errors, notices and turn
 * footers (reason, duration, tokens and cost, changed files).
 */
import { memo } from 'react'
import { turnFooter, type TimelineItem } from '../../store/reduce-event'
import { AssistantText } from './AssistantText'
import { ToolRow } from './ToolRow'
import { TurnChangesLink } from '../changes/TurnChangesLink'
import { ApprovalCard } from '../approvals/ApprovalCard'
import { formatDuration } from './turn-timing'
import { thoughtLabel } from '../../../../shared/thinking'
import { appAdvice } from './host-advice'
import { ImageThumbs } from './ImageThumbs'
import { useAppStore } from '../../store/app-store'
import { hookSummary } from '../../store/hook-events'

/** One row; memoized so a streaming delta re-renders only the row whose item changed. */
export const Row = memo(function Row({ item }: { item: TimelineItem }): React.JSX.Element {
  const sessionId = useAppStore((s) => s.currentId)
  switch (item.kind) {
    case 'user':
      if (item.command) {
        // a custom command: the line typed, its expansion (what the model got) collapsed
        return (
          <div className="row user" data-testid="user-message" data-command={item.command}>
            <code>{item.command}</code>
            <details className="command-expansion" data-testid="command-expansion">
              <summary>expanded from {item.commandFile}</summary>
              <pre>{item.text}</pre>
            </details>
            <ImageThumbs sessionId={sessionId} images={item.images} />
          </div>
        )
      }
      return (
        <div className="row user" data-testid="user-message">
          {item.text}
          <ImageThumbs sessionId={sessionId} images={item.images} />
        </div>
      )
    case 'assistant':
      return <AssistantText text={item.text} done={item.done === true} />
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
        <div className={item.warn ? 'row meta warn' : 'row meta'} data-testid="mode-row">
          mode: {item.mode}
          {item.note ? ` — ${item.note}` : ''}
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
          <strong>{item.code}</strong> {appAdvice(item.message)}
        </div>
      )
    case 'turn_end':
      return (
        <div className={`row turn-end reason-${item.reason}`} data-testid="turn-end" data-reason={item.reason}>
          turn {item.reason}
          {item.durationMs !== undefined && <span data-testid="turn-duration"> · {formatDuration(item.durationMs)}</span>}
          {item.usage && <span data-testid="turn-usage"> · {turnFooter(item.usage)}</span>}
          <TurnChangesLink turnId={item.turnId} />
        </div>
      )
    case 'reasoning':
      // collapsed: the duration shows; the text opens on a click
      return (
        <details className="row meta reasoning" data-testid="reasoning-row" data-done={item.done}>
          <summary>{item.done ? thoughtLabel(item.durationMs ?? 0) : 'Thinking…'}{item.redacted && !item.text ? ' (redacted)' : ''}</summary>
          {item.text && <div className="reasoning-text">{item.text}</div>}
        </details>
      )
    case 'hook':
      // collapsed: what ran and how it ended; the command and what the hook said open on a click
      return (
        <details className={`row meta hook hook-${item.status}`} data-testid="hook-row" data-status={item.status} data-event={item.event}>
          <summary>{hookSummary(item)}{item.message ? ` — ${item.message.split('\n')[0]}` : ''}</summary>
          <div className="hook-detail">
            <code>{item.command}</code> <span className="hook-source">({item.source === 'user' ? 'your settings' : item.file})</span>
            {item.message && <pre className="hook-message">{item.message}</pre>}
          </div>
        </details>
      )
    case 'notice':
      return (
        <div className={`row meta notice${item.warn ? ' warn' : ''}`} data-testid="notice-row">
          {item.text}
        </div>
      )
  }
})
