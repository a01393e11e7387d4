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
  /**
   * Wait for `label`: drawn once the wait has lasted {@link SPINNER_DELAY_MS}. The same label as the
   * wait in progress keeps its start (the elapsed time goes on); another label starts a new wait.
   */
  wait(label: string): void
  /** Erase the line if drawn (before other output); the wait goes on and is drawn again at the next frame. */
  hide(): void
  /** Erase the line if drawn and end the wait; true when a drawn line was erased (the cursor is then at its start). */
  clear(): boolean
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
  const hide = (): void => {
    if (drawn) err.write('\r\u001b[2K')
    drawn = false
  }
  const clear = (): boolean => {
    if (timer) clearInterval(timer)
    timer = null
    current = null
    const was = drawn
    hide()
    return was
  }
  if (!enabled) return { wait: () => undefined, hide: () => undefined, clear: () => false, label: () => null }
  return {
    wait(label) {
      if (current?.label === label && timer) return
      clear()
      current = { label, since: now() }
      timer = setInterval(draw, FRAME_MS)
      timer.unref()
    },
    hide,
    clear,
    label: () => current?.label ?? null
  }
}
