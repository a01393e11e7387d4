/**
 * A one-line spinner on stderr with the elapsed time — `⠹ waiting for the model · 12 s`,
 * `⠹ running bash · 4 s` — shown only on a terminal and only once a wait has lasted
 * {@link SPINNER_DELAY_MS}; every other write clears it first (the renderer calls {@link Spinner.clear}).
 */

/** Quiet time before the spinner appears, in ms. */
export const SPINNER_DELAY_MS = 1000
/** Redraw interval, in ms. */
const FRAME_MS = 120
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/** A spinner; all methods are no-ops when disabled. */
export interface Spinner {
  /** Start (or restart) waiting for `label`; drawn after {@link SPINNER_DELAY_MS} from `since` (ms epoch, default now). */
  wait(label: string, since?: number): void
  /** Erase the line if drawn and stop (until the next `wait`). */
  clear(): void
  /** The label of the wait in progress, or null. */
  label(): string | null
}

/** `3 s`, `1 m 05 s`: a wait's elapsed time. */
export function elapsedText(ms: number): string {
  const s = Math.floor(ms / 1000)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`
}

/**
 * Create a spinner on `err`.
 * @param enabled false (not a TTY) makes every method a no-op
 * @param now clock (ms), for tests
 */
export function createSpinner(err: NodeJS.WritableStream, enabled: boolean, now: () => number = Date.now): Spinner {
  let timer: NodeJS.Timeout | null = null
  let current: { label: string; since: number } | null = null
  let drawn = false
  let frame = 0
  const draw = (): void => {
    if (!current) return
    const waited = now() - current.since
    if (waited < SPINNER_DELAY_MS) return
    err.write(`\r\u001b[2K${FRAMES[frame++ % FRAMES.length]} ${current.label} · ${elapsedText(waited)}`)
    drawn = true
  }
  const clear = (): void => {
    if (timer) clearInterval(timer)
    timer = null
    current = null
    if (drawn) err.write('\r\u001b[2K')
    drawn = false
  }
  if (!enabled) return { wait: () => undefined, clear: () => undefined, label: () => null }
  return {
    wait(label, since = now()) {
      clear()
      current = { label, since }
      timer = setInterval(draw, FRAME_MS)
      timer.unref()
    },
    clear,
    label: () => current?.label ?? null
  }
}
