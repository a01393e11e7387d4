/**
 * The replay switch of the session reducer: while a replay runs, rows are appended to the view's own
 * items array instead of a copy. A module of its own, so the reducer (./reduce-event.ts) and the
 * fold-ins it calls (features/timeline/turn-timing.ts) read it without importing each other.
 */

/**
 * While true, rows are appended to (and tool rows replaced in) the view's own items array instead of
 * a copy: only for a replay whose views nobody else holds yet (see {@link withInPlaceAppends}).
 */
let inPlace = false

/**
 * Run `f` (a replay of a session's history into a fresh view) with in-place appends: 10,000 events
 * cost O(n) instead of O(n²) array copies. The caller must hand out a fresh view only after `f`.
 */
export function withInPlaceAppends<T>(f: () => T): T {
  inPlace = true
  try {
    return f()
  } finally {
    inPlace = false
  }
}

/** True inside {@link withInPlaceAppends}. */
export function appendsInPlace(): boolean {
  return inPlace
}
