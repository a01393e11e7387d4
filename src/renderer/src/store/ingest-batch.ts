/**
 * Live events applied to the store once per animation frame instead of once per event: a burst
 * (2,000 text deltas a second, a bash flood) becomes one state update and one React render per
 * frame. A timer backs the frame up (a hidden page gets no frames), so nothing waits long.
 */
import type { EventEnvelope } from '../../../shared/events'

/** Longest wait (ms) for a frame before the batch is applied anyway. */
const FALLBACK_MS = 100

/**
 * A batcher calling `apply` with every envelope received since the last call, in order.
 * @returns `push` (queue one envelope) and `flush` (apply now; e.g. before a history replay)
 */
export function ingestBatcher(apply: (batch: EventEnvelope[]) => void): { push(envelope: EventEnvelope): void; flush(): void } {
  let pending: EventEnvelope[] = []
  let frame = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = (): void => {
    if (frame !== 0 && typeof cancelAnimationFrame === 'function') cancelAnimationFrame(frame)
    frame = 0
    clearTimeout(timer)
    timer = undefined
    if (pending.length === 0) return
    const batch = pending
    pending = []
    apply(batch)
  }
  return {
    push(envelope) {
      pending.push(envelope)
      if (timer !== undefined) return
      if (typeof requestAnimationFrame === 'function') frame = requestAnimationFrame(flush)
      timer = setTimeout(flush, FALLBACK_MS)
    },
    flush
  }
}
