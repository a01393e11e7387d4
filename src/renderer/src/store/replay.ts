/**
 * Rebuild a session's view from its persisted history in one pass (after a reload, a switch or a
 * resume): events are applied with in-place appends (reduce-event.ts) straight to one view (no
 * per-event copy of the views map), so a 10,000-event session costs O(n); the view is handed out
 * only afterwards, with its own items array. Same result as reducing the envelopes one by one.
 */
import type { EventEnvelope } from '../../../shared/events'
import { applyTurnTiming } from '../features/timeline/turn-timing'
import { applyEvent, emptyView, type SessionView } from './reduce-event'
import { withInPlaceAppends } from './in-place'

/** The view of session `sessionId` after `envelopes` (its history, in order; duplicates skipped). */
export function replayHistory(sessionId: string, envelopes: readonly EventEnvelope[]): SessionView {
  return withInPlaceAppends(() => {
    let view = emptyView(sessionId)
    let lastSeq = 0
    for (const envelope of envelopes) {
      if (envelope.sessionId !== sessionId || (envelope.seq !== 0 && envelope.seq <= lastSeq)) continue
      view = applyTurnTiming(applyEvent(view, envelope.event, envelope.seq), envelope)
      lastSeq = Math.max(lastSeq, envelope.seq)
    }
    return { ...view, items: view.items.slice(), lastSeq }
  })
}
