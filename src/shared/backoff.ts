/**
 * The one retry backoff: exponential with optional jitter, used by the model request's retries
 * (harness/model-request.ts, no jitter: the delay is the cap) and the browser's WebSocket reconnects
 * (renderer/ws-client.ts, jitter drawn from [cap/2, cap]). Pure.
 */

/**
 * The delay (ms) before the next attempt after `failures` failed attempts in a row: drawn from
 * [cap/2, cap] with cap = min(maxMs, baseMs·2^(failures−1)); `random` returning 1 gives the cap itself.
 * @param random a source in [0, 1] (Math.random for jitter, `() => 1` for none)
 */
export function backoffDelay(failures: number, random: () => number, baseMs = 250, maxMs = 10_000): number {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1))
  return Math.round(cap / 2 + random() * (cap / 2))
}
