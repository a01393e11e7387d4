/**
 * The session timeline: user messages, streamed assistant text, tool rows, guest status changes,
 * mode switches, errors and turn ends, in event order (rows in TimelineRow.tsx). Virtualised with
 * @tanstack/react-virtual — only the rows near the viewport are in the DOM, measured as they render
 * — so 10,000 events scroll smoothly. It follows the stream while the user is at the bottom; once
 * they scroll up it stays put and a "New messages below" button appears when rows arrive. A feed
 * (role="feed", rows are articles): ↑/↓ (or k/j) move between rows, Home/End to the first/last,
 * with a visible focus ring. Rows a compaction summarised for the model stay, marked compacted.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useCurrentView } from '../../store/app-store'
import { Row } from './TimelineRow'
import { ModelWaiting } from './ModelWaiting'
import { ContextMeter } from '../context/ContextMeter'
import './timeline.css'

/** Distance from the bottom (px) within which the timeline counts as following the stream. */
const STICK_PX = 40
/** First guess of a row's height (px) before it is measured. */
const ESTIMATE_PX = 48

/** The scrolling, virtualised list of the current session's rows. */
export function Timeline(): React.JSX.Element {
  const view = useCurrentView()
  const ref = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const seenCount = useRef(0)
  const [unseen, setUnseen] = useState(false)
  const items = view?.items
  const count = items?.length ?? 0
  const compactedBefore = view?.compactedBefore ?? 0

  // a stable key function: a new one per render made the virtualiser recompute every row's offset per streamed delta
  const itemsRef = useRef(items)
  itemsRef.current = items
  const getItemKey = useCallback((i: number) => itemsRef.current?.[i]?.id ?? i, [])
  const getScrollElement = useCallback(() => ref.current, [])
  const virtualizer = useVirtualizer({ count, getScrollElement, estimateSize: () => ESTIMATE_PX, overscan: 6, getItemKey })
  // a session's rows appearing while the timeline follows the bottom (a history loaded, a switch):
  // the first rows rendered are the bottom ones, not the top ones the virtualiser would pick at
  // offset 0 before the scroll to the bottom below moves it (each row renders its Markdown: a
  // 10,000-event history painted two screens of rows, issue 24)
  const placedFor = useRef<string | null>(null)
  if (count > 0 && stick.current && placedFor.current !== (view?.sessionId ?? null)) {
    placedFor.current = view?.sessionId ?? null
    virtualizer.scrollOffset = Math.max(0, virtualizer.getTotalSize() - (ref.current?.clientHeight ?? 0))
  }

  const toBottom = useCallback(() => {
    const el = ref.current
    if (el) el.scrollTop = el.scrollHeight
  }, [])

  // follow new rows and streamed text while stuck to the bottom; else note that rows arrived
  const totalSize = virtualizer.getTotalSize()
  const last = items?.[count - 1]
  useLayoutEffect(() => {
    if (stick.current) {
      toBottom()
      seenCount.current = count
    } else if (count > seenCount.current) setUnseen(true)
  }, [count, last, totalSize, toBottom])

  // the rows' height or the view's own height can change after the effect above has run (a row
  // measured late, the composer growing, a notice line appearing): while stuck, follow those too
  useEffect(() => {
    const el = ref.current
    const rows = el?.querySelector('.timeline-rows')
    if (!el || !rows) return
    const follow = new ResizeObserver(() => {
      if (stick.current) toBottom()
    })
    follow.observe(el)
    follow.observe(rows)
    return () => follow.disconnect()
  }, [toBottom])

  // a session switch starts at its bottom
  const sessionId = view?.sessionId
  useEffect(() => {
    stick.current = true
    setUnseen(false)
    seenCount.current = 0
    requestAnimationFrame(toBottom)
  }, [sessionId, toBottom])

  const lastTop = useRef(0)
  const onScroll = (e: React.UIEvent<HTMLDivElement>): void => {
    const el = e.currentTarget
    // only a move up lets go of the bottom: growing rows (and the virtualiser's adjustments for
    // them) fire scroll events too, and must not
    if (el.scrollTop < lastTop.current - 1) stick.current = false
    lastTop.current = el.scrollTop
    if (el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX) stick.current = true
    if (stick.current) {
      seenCount.current = count
      setUnseen(false)
    }
  }

  const focusRow = (index: number): void => {
    const i = Math.max(0, Math.min(count - 1, index))
    virtualizer.scrollToIndex(i, { align: 'auto' })
    // the row may only be rendered after the scroll
    requestAnimationFrame(() => ref.current?.querySelector<HTMLElement>(`[data-index="${i}"]`)?.focus())
  }
  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>): void => {
    const target = e.target as HTMLElement
    // keys typed into a control inside a row (a feedback box, a button) stay with it
    if (target.closest('input, textarea, select, [contenteditable="true"]')) return
    const current = Number(target.closest<HTMLElement>('[data-index]')?.dataset.index ?? -1)
    if (count === 0 || (current === -1 && target !== ref.current)) return
    const step: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1 }
    let next: number
    if (e.key === 'Home') next = 0
    else if (e.key === 'End') next = count - 1
    else if (step[e.key] === undefined) return
    // from the feed itself, the first row in view
    else next = current === -1 ? (virtualizer.getVirtualItems()[0]?.index ?? 0) : current + (step[e.key] ?? 0)
    e.preventDefault()
    focusRow(next)
  }

  return (
    <div className="timeline-frame">
      <div
        className="timeline virtual"
        data-testid="timeline"
        ref={ref}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        role="feed"
        aria-busy={view?.running ?? false}
        aria-label="Session timeline"
        tabIndex={0}
      >
        {!view && <div className="empty">Open a repository to start a session.</div>}
        <div className="timeline-rows" style={{ height: totalSize }}>
          {virtualizer.getVirtualItems().map((v) => {
            const item = items?.[v.index]
            if (!item) return null
            const compacted = v.index < compactedBefore
            return (
              <div
                key={v.key}
                data-index={v.index}
                ref={virtualizer.measureElement}
                className={`timeline-item${compacted ? ' compacted' : ''}`}
                style={{ transform: `translateY(${v.start}px)` }}
                role="article"
                aria-posinset={v.index + 1}
                aria-setsize={count}
                tabIndex={-1}
                {...(compacted ? { 'data-compacted': 'true', title: 'compacted: the model gets a summary of this row' } : {})}
              >
                <Row item={item} />
              </div>
            )
          })}
        </div>
        <ModelWaiting />
        <ContextMeter />
      </div>
      {unseen && (
        <button
          className="new-messages"
          data-testid="new-messages"
          onClick={() => {
            stick.current = true
            setUnseen(false)
            toBottom()
          }}
        >
          New messages below ↓
        </button>
      )}
    </div>
  )
}
