/**
 * One tool call in the timeline: its name, its arguments (one line, expandable), its status, the
 * streamed output while it runs and the result sent back to the model once it finishes.
 */
import { useState } from 'react'
import type { TimelineItem } from '../../store/reduce-event'
import { useAppStore } from '../../store/app-store'
import { fileTextFromReadResult } from '../files/file-text'

type ToolItem = Extract<TimelineItem, { kind: 'tool' }>

function summarize(args: unknown): string {
  if (args === undefined || args === null) return ''
  if (typeof args === 'string') return args
  try {
    return JSON.stringify(args)
  } catch {
    return String(args)
  }
}

function pathOf(args: unknown): string | undefined {
  if (args && typeof args === 'object' && 'path' in args) {
    const p = (args as { path: unknown }).path
    return typeof p === 'string' ? p : undefined
  }
  return undefined
}

/** A collapsible row for one tool call. */
export function ToolRow({ item }: { item: ToolItem }): React.JSX.Element {
  const [open, setOpen] = useState(false)
  const openFile = useAppStore((s) => s.openFile)
  const args = summarize(item.args)
  const path = pathOf(item.args)
  const body = item.result ?? item.output
  return (
    <div className={`tool-row status-${item.status}`} data-testid="tool-row" data-tool-name={item.name} data-status={item.status}>
      <button className="tool-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className="tool-status" aria-label={item.status}>
          {item.status === 'running' ? '◌' : item.status === 'ok' ? '✓' : '✗'}
        </span>
        <span className="tool-name" data-testid="tool-name">
          {item.name}
        </span>
        <span className="tool-args" data-testid="tool-args" title={args}>
          {args}
        </span>
      </button>
      {item.name === 'read_file' && path && item.status === 'ok' && item.result !== undefined && (
        <button className="link tool-open" data-testid="tool-open-file" onClick={() => openFile({ path, content: fileTextFromReadResult(item.result ?? '') })}>
          view
        </button>
      )}
      {body.length > 0 && (
        <pre className={`tool-result${open ? ' open' : ''}`} data-testid="tool-result">
          {body}
        </pre>
      )}
    </div>
  )
}
