/**
 * The one abort-and-deadline race: how a wait on something that cannot itself be cancelled ends —
 * with its value, at a deadline, or at an abort (Stop) — without leaking a timer or an abort
 * listener, and with a late value handed to a cleanup. raceAbort (guest starts), withTimeout (Docker
 * calls), settleWithin (waits that give up quietly) are all this. Pure: timers and AbortSignal only.
 */

/** How {@link raceDeadline} ended: the awaited value, the deadline, or the abort. */
export type RaceOutcome<T> = { kind: 'value'; value: T } | { kind: 'timeout' } | { kind: 'aborted' }

/** Options of {@link raceDeadline}. */
export interface RaceOptions<T> {
  /** Deadline (ms from now); none when absent. */
  ms?: number
  /** Ends the wait at once when it aborts (an aborted signal ends it before it starts). */
  signal?: AbortSignal
  /** Receives `p`'s value when it arrives after the race was lost (to remove what it created). */
  onLate?: (value: T) => void
}

/**
 * Wait for `p`, at most until `opts.ms` passes or `opts.signal` aborts. A rejection of `p` before
 * either passes on as a rejection; one after is swallowed (the caller has moved on).
 */
export function raceDeadline<T>(p: Promise<T>, opts: RaceOptions<T>): Promise<RaceOutcome<T>> {
  const { ms, signal, onLate } = opts
  return new Promise<RaceOutcome<T>>((resolve, reject) => {
    let done = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (): boolean => {
      if (done) return false
      done = true
      if (timer !== undefined) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      return true
    }
    const onAbort = (): void => {
      if (finish()) resolve({ kind: 'aborted' })
    }
    p.then(
      (value) => {
        if (finish()) resolve({ kind: 'value', value })
        else onLate?.(value)
      },
      (err: unknown) => {
        if (finish()) reject(err)
      }
    )
    if (done) return
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    if (ms !== undefined) timer = setTimeout(() => finish() && resolve({ kind: 'timeout' }), ms)
  })
}
