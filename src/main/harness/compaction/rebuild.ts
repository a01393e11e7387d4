/**
 * Which events the model history is rebuilt from after compactions. The log keeps every event; the
 * latest `compaction_finished` decides: `summary` → one user message with the summary and keep-set
 * (context-text.ts), then the verbatim tail (its `tailEvents` history events before it), then the
 * events after it; `mask` → the history as it was (earlier compactions applied) with the results of
 * tool calls finished before the tail replaced by one-line stubs (masking.ts).
 */
import type { SessionEvent } from '../../../shared/events'
import { MAX_IMAGES_PER_MESSAGE, type ImageRef } from '../../../shared/images'
import { renderCompacted } from './context-text'

/** Events that make up the model history (the rest are ignored by the rebuild). */
export function isHistoryEvent(e: SessionEvent): boolean {
  return e.type === 'user_message' || e.type === 'assistant_message' || e.type === 'tool_call_finished'
}

/** What the history is built from: leading text (a compacted context), the events replayed, and the call ids whose results are masked. */
export interface CompactedView {
  /** The compacted context's first user message, when a summary compaction applies. */
  lead?: string
  /**
   * The images the user attached to the messages a summary replaced (the latest
   * MAX_IMAGES_PER_MESSAGE), sent with the lead: the user's images are part of the task. A tool's
   * images are not kept (the model can read the file again).
   */
  leadImages?: ImageRef[]
  /** Events to replay in order (only {@link isHistoryEvent}s matter). */
  replay: readonly SessionEvent[]
  /** Tool calls whose results are replaced by stubs. */
  masked: ReadonlySet<string>
}

/**
 * The index where the verbatim tail of a compaction at `at` starts: `tailEvents` history events
 * back from it (moved back over tool results, so the tail starts at a message, never an orphan result).
 */
export function tailStart(events: readonly SessionEvent[], at: number, tailEvents: number): number {
  let count = 0
  let i = at
  while (i > 0 && count < tailEvents) {
    i--
    if (isHistoryEvent(events[i]!)) count++
  }
  while (i > 0 && events[i]!.type === 'tool_call_finished') i--
  return i
}

/** The {@link CompactedView} of `events` (the whole history unchanged when nothing was compacted). */
export function compactedView(events: readonly SessionEvent[]): CompactedView {
  let at = -1
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type === 'compaction_finished') {
      at = i
      break
    }
  }
  if (at < 0) return { replay: events, masked: new Set() }
  const c = events[at] as Extract<SessionEvent, { type: 'compaction_finished' }>
  const start = tailStart(events, at, c.tailEvents)
  const after = events.slice(at + 1)
  if (c.method === 'summary') {
    const attached = events.slice(0, start).flatMap((e) => (e.type === 'user_message' ? (e.images ?? []) : []))
    const leadImages = attached.filter((r, i, all) => all.findIndex((x) => x.sha256 === r.sha256) === i).slice(-MAX_IMAGES_PER_MESSAGE)
    return { lead: renderCompacted(c.summary, c.keep), ...(leadImages.length > 0 ? { leadImages } : {}), replay: [...events.slice(start, at), ...after], masked: new Set() }
  }
  const before = compactedView(events.slice(0, at))
  const masked = new Set(before.masked)
  for (let i = 0; i < start; i++) {
    const e = events[i]!
    if (e.type === 'tool_call_finished') masked.add(e.callId)
  }
  return { ...(before.lead !== undefined ? { lead: before.lead } : {}), ...(before.leadImages ? { leadImages: before.leadImages } : {}), replay: [...before.replay, ...after], masked }
}
