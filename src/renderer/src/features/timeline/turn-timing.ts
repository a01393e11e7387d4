/**
 * How long each turn took, for the turn footer: the time between a turn's `turn_started` and
 * `turn_ended` envelopes (their `time`, ms since the epoch), attached to the turn_end row as
 * `durationMs`. Works the same live and when a session's history is replayed.
 */
import type { EventEnvelope } from '../../../../shared/events'
import type { SessionView } from '../../store/reduce-event'
import { appendsInPlace } from '../../store/in-place'

/**
 * Record a turn's start, or put its duration on the turn_end row just pushed.
 * @param next the view after applying `envelope`'s event
 * @returns `next`, or a copy with the start time or the duration set
 */
export function applyTurnTiming(next: SessionView, envelope: EventEnvelope): SessionView {
  const e = envelope.event
  // turns of a session never overlap: the latest start is the only one a turn_ended can need
  if (e.type === 'turn_started') return { ...next, turnStart: { turnId: e.turnId, time: envelope.time } }
  if (e.type !== 'turn_ended') return next
  const started = next.turnStart?.turnId === e.turnId ? next.turnStart.time : undefined
  const last = next.items[next.items.length - 1]
  if (started === undefined || !last || last.kind !== 'turn_end' || last.turnId !== e.turnId) return next
  const items = appendsInPlace() ? next.items : next.items.slice()
  items[items.length - 1] = { ...last, durationMs: Math.max(0, envelope.time - started) }
  return { ...next, items }
}

/** A duration for a footer: `850 ms`, `4.2 s`, `3 min 05 s`, `1 h 02 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = ms / 1000
  if (s < 60) return `${s.toFixed(1)} s`
  const whole = Math.round(s)
  const min = Math.floor(whole / 60)
  if (min < 60) return `${min} min ${String(whole % 60).padStart(2, '0')} s`
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`
}
