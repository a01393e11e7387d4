/**
 * Waiting for a condition in tests: poll it with a deadline (a hang guard), never sleep a fixed time
 * in its place (ADR 0020 item 12).
 */

/**
 * Poll `pred` every `everyMs` until it holds or `timeoutMs` pass, then check it once more.
 * @returns whether it held (for `expect(await eventually(…)).toBe(true)`)
 */
export async function eventually(pred: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<boolean> {
  const end = Date.now() + timeoutMs
  while (!(await pred()) && Date.now() < end) await new Promise((r) => setTimeout(r, everyMs))
  return pred()
}

/**
 * Poll `cond` every `everyMs` until it holds.
 * @param what what is awaited (or a function giving it, read only on failure), for the error
 * @throws Error `hang guard (N ms): WHAT` once `timeoutMs` pass without it holding
 */
export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string | (() => string), everyMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`hang guard (${timeoutMs} ms): ${typeof what === 'string' ? what : what()}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
