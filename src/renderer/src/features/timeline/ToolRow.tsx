/**
 * One tool call in the timeline: a clickable header (chevron, status, name, readable arguments with
 * the full values in a tooltip) that folds the row's body; the body holds edit_file's diff and the
 * streamed output or final result (a finished bash call's as its exit code, time and streams:
 * ./bash-result.ts), clipped to a few lines with a "show more / show less" toggle
 * when it overflows. A `task` call's row holds its subagent's calls as nested rows, folded with it.
 */
import { memo, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { TimelineItem } from '../../store/reduce-event'
import { ViewFileLink } from '../files/ViewFileLink'
import { DiffView } from './DiffView'
import { OpenChangeLink } from '../changes/OpenChangeLink'
import { describeArgs } from './tool-args'
import { plainText } from './plain-text'
import { bashSummary, parseBashResult, type BashResult } from './bash-result'
import { PlanArgs } from './PlanArgs'
import { ImageThumbs } from './ImageThumbs'
import { useAppStore } from '../../store/app-store'
import { toolLabel } from '../../../../shared/mcp'

type ToolItem = Extract<TimelineItem, { kind: 'tool' }>

/** Characters of a running call's streamed output its row shows (the newest). */
const LIVE_OUTPUT_CHARS = 8 * 1024

function pathOf(args: unknown): string | undefined {
  if (args && typeof args === 'object' && 'path' in args) {
    const p = args.path
    return typeof p === 'string' ? p : undefined
  }
  return undefined
}

/** The result text, clipped with a toggle when it is taller than its box. */
function ToolResult({ body }: { body: string }): React.JSX.Element {
  const ref = useRef<HTMLPreElement>(null)
  const [full, setFull] = useState(false)
  const [overflows, setOverflows] = useState(false)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el || full) return
    const measure = (): void => setOverflows(el.scrollHeight > el.clientHeight + 1)
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(el)
    return () => observer.disconnect()
  }, [body, full])
  return (
    <>
      <pre ref={ref} className={`tool-result${full ? ' full' : ''}`} data-testid="tool-result">
        {body}
      </pre>
      {(overflows || full) && (
        <button className="link tool-more" data-testid="tool-more" aria-expanded={full} onClick={() => setFull(!full)}>
          {full ? 'show less ▴' : 'show more ▾'}
        </button>
      )}
    </>
  )
}

/** A finished bash call's body: "exit N · T", any notes, stdout, stderr (marked) and the cut note. */
function BashBody({ result }: { result: BashResult }): React.JSX.Element {
  const streams = [result.stdout, result.stderr ? `${result.stdout ? '\n' : ''}stderr:\n${result.stderr}` : ''].join('')
  return (
    <>
      <div className={`bash-summary${result.exitCode === 0 ? '' : ' failed'}`} data-testid="bash-summary">
        {bashSummary(result)}
        {result.notes.map((n) => (
          <span key={n} className="bash-note">
            {' '}
            · {n}
          </span>
        ))}
      </div>
      {streams ? <ToolResult body={streams} /> : <div className="bash-empty muted">(no output)</div>}
      {result.cut && <div className="bash-note muted">{result.cut}</div>}
    </>
  )
}

/** A foldable row for one tool call. */
export const ToolRow = memo(function ToolRow({ item }: { item: ToolItem }): React.JSX.Element {
  const [folded, setFolded] = useState(false)
  const sessionId = useAppStore((s) => s.currentId)
  const args = useMemo(() => describeArgs(item.name, item.args), [item.name, item.args])
  const path = pathOf(item.args)
  // escape sequences stripped while streaming too (a chunk may end inside one); a running call's
  // clipped box shows its newest output only, so a flood never lays out 64 KiB per frame
  const body = useMemo(() => plainText(item.result ?? (item.status === 'running' ? item.output.slice(-LIVE_OUTPUT_CHARS) : item.output)), [item.result, item.output, item.status])
  // the real diff of the file when the core sent one (a write over an existing file too); else an edit's arguments
  const isEdit = item.name === 'edit_file' || item.diff !== undefined
  const isPlan = item.name === 'plan'
  const children = item.children ?? []
  const hasBody = body.length > 0 || isEdit || isPlan || children.length > 0
  // a finished bash call: its fields, not its raw labels; a non-zero exit is a failure (issue 23)
  const bash = useMemo(() => (item.name === 'bash' && item.status !== 'running' && item.result ? parseBashResult(body) : null), [item.name, item.status, item.result, body])
  const status = bash && bash.exitCode !== 0 && item.status === 'ok' ? 'error' : item.status
  return (
    <div className={`tool-row status-${status}`} data-testid="tool-row" data-tool-name={item.name} data-status={status} data-exit-code={bash ? String(bash.exitCode) : undefined}>
      <button
        className="tool-head"
        onClick={() => hasBody && setFolded(!folded)}
        aria-expanded={hasBody ? !folded : undefined}
      >
        <span className="tool-chevron" aria-hidden>
          {hasBody ? (folded ? '▸' : '▾') : ''}
        </span>
        <span className="tool-status" aria-label={status}>
          {status === 'running' ? '◌' : status === 'ok' ? '✓' : '✗'}
        </span>
        <span className="tool-name" data-testid="tool-name" title={item.name}>
          {toolLabel(item.name)}
        </span>
        {item.name === 'task' && (
          <span className="tool-subagent-count muted" data-testid="subagent-count">
            {children.length} call{children.length === 1 ? '' : 's'}
          </span>
        )}
        <span className="tool-args" data-testid="tool-args" title={args.title}>
          {args.command !== undefined && <code className="tool-command">$ {args.command}</code>}
          {args.pairs.map((p) => (
            <span key={p.key} className="tool-arg">
              <span className="tool-arg-key">{p.key}:</span> {p.value}
            </span>
          ))}
        </span>
      </button>
      <span className="tool-links">
        <ViewFileLink name={item.name} args={item.args} result={item.result} status={item.status} path={path} />
        {(item.name === 'edit_file' || item.name === 'write_file') && path && item.status === 'ok' && <OpenChangeLink turnId={item.turnId} path={path} />}
      </span>
      {!folded && (
        <div className="tool-body">
          {isEdit && <DiffView args={item.args} result={item.status === 'ok' ? item.result : undefined} diff={item.diff} />}
          {isPlan && <PlanArgs args={item.args} />}
          {children.length > 0 && (
            <div className="subagent-calls" data-testid="subagent-calls">
              {children.map((c) => (
                <ToolRow key={c.id} item={c} />
              ))}
            </div>
          )}
          {bash ? <BashBody result={bash} /> : body.length > 0 && <ToolResult body={body} />}
          {item.image && <ImageThumbs sessionId={sessionId} images={[item.image]} />}
        </div>
      )}
    </div>
  )
})
