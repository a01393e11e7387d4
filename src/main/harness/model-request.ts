/**
 * One model request that cannot hang: every attempt is watched for silence (no stream part for
 * the idle timeout → aborted, retried once, then `provider_timeout`), the caller hears when the
 * model has been silent for a few seconds (`model_waiting`), and failures a retry can cure (HTTP
 * 408/409/429/5xx, connection refused/reset) are retried with backoff that honours `retry-after`.
 * Nothing is retried once Stop was pressed, and a backoff wait ends at Stop.
 * The AI SDK's own retries are off (`maxRetries: 0`): they neither stop at Stop nor know the idle timeout.
 */
import { APICallError, RetryError } from 'ai'
import { CortexError } from '../../shared/errors'
import { backoffDelay } from '../../shared/backoff'

/** Env var: seconds a model stream may send nothing before it is aborted (`--stream-idle-timeout`). */
export const STREAM_IDLE_TIMEOUT_ENV = 'CORTEX_STREAM_IDLE_TIMEOUT'
/** Default idle timeout of a model stream, in seconds. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_S = 120
/** Silence (ms) after which `onWaiting` starts reporting, about once a second. */
export const WAITING_AFTER_MS = 3000
/** Default retries of a request that failed with a retryable HTTP status or connection error. */
export const DEFAULT_MODEL_RETRIES = 2
/** Retries of an attempt that went silent for the idle timeout. */
export const IDLE_RETRIES = 1
/** First backoff (ms); doubles per retry up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 1000
const MAX_BACKOFF_MS = 8000
/** Longest `retry-after` honoured (ms); a server asking for more is not retried and the error is shown. */
export const MAX_RETRY_AFTER_MS = 60_000
/** How often (ms) the silence is checked. */
const CHECK_MS = 250

/** System / undici error codes of a connection that a new attempt may get past. */
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ConnectionRefused', 'ConnectionClosed'
])

/** How one request is watched and retried. */
export interface ModelRequestOptions {
  /** Stop: ends the attempt and any backoff wait; nothing is retried after it. */
  signal: AbortSignal
  /** Silence (ms) after which an attempt is aborted ({@link STREAM_IDLE_TIMEOUT_ENV}). */
  idleTimeoutMs: number
  /** Retries for retryable HTTP / connection failures (default {@link DEFAULT_MODEL_RETRIES}). */
  maxRetries?: number
  /** Called about once a second with the silence so far (ms) once it reaches {@link WAITING_AFTER_MS} (or half the idle timeout), and with 0 when the stream moves again. */
  onWaiting(waitedMs: number): void
  /** Called before each retry: attempt number (2 = first retry), the wait (ms) and why. */
  onRetry(attempt: number, delayMs: number, reason: string): void
  /** Classify the final failure (provider errors → CortexError). */
  classifyError(err: unknown): CortexError
}

/** What an attempt gets: its abort signal (Stop or silence) and `alive()`, to call on every stream part. */
export interface AttemptContext {
  signal: AbortSignal
  alive(): void
}

/**
 * Run `attempt` until it returns, retrying as described in the module header.
 * @param attempt one model request; it returns normally after Stop (with what it has), throws the raw error otherwise
 * @param stopped the result when Stop ends a backoff wait or follows a failed attempt
 * @throws CortexError `provider_timeout` after {@link IDLE_RETRIES} + 1 silent attempts; otherwise `classifyError` of the last failure
 */
export async function requestModel<T>(
  opts: ModelRequestOptions,
  attempt: (ctx: AttemptContext) => Promise<T>,
  stopped: () => T
): Promise<T> {
  const maxRetries = opts.maxRetries ?? DEFAULT_MODEL_RETRIES
  let idleFailures = 0
  let failures = 0
  for (let n = 1; ; n++) {
    const idle = new AbortController()
    const watch = watchSilence(opts, idle, n > 1)
    let error: unknown
    try {
      return await attempt({ signal: AbortSignal.any([opts.signal, idle.signal]), alive: watch.alive })
    } catch (err) {
      error = err
    } finally {
      watch.stop()
    }
    if (opts.signal.aborted) return stopped()
    let delayMs: number
    let reason: string
    if (idle.signal.aborted) {
      if (++idleFailures > IDLE_RETRIES) throw timeoutError(opts.idleTimeoutMs, idleFailures, error)
      delayMs = 0
      reason = `the model sent nothing for ${seconds(opts.idleTimeoutMs)} s`
    } else {
      const verdict = retryVerdict(error)
      if (!verdict || ++failures > maxRetries) throw opts.classifyError(error)
      if (verdict.retryAfterMs !== undefined && verdict.retryAfterMs > MAX_RETRY_AFTER_MS) throw opts.classifyError(error)
      delayMs = verdict.retryAfterMs ?? backoffDelay(failures, () => 1, FIRST_BACKOFF_MS, MAX_BACKOFF_MS)
      reason = verdict.reason
    }
    opts.onRetry(n + 1, delayMs, reason)
    if (!(await sleepUnlessStopped(delayMs, opts.signal))) return stopped()
  }
}

/** The typed error of a stream that stayed silent on every attempt: what happened and which setting to change. */
function timeoutError(idleTimeoutMs: number, attempts: number, cause: unknown): CortexError {
  const s = seconds(idleTimeoutMs)
  return new CortexError(
    'provider_timeout',
    `the model stream sent nothing for ${s} s, ${attempts} times in a row (the request was retried ${attempts - 1} time${attempts === 2 ? '' : 's'}); ` +
      `the server may be overloaded or stuck. For a slow model raise --stream-idle-timeout (or ${STREAM_IDLE_TIMEOUT_ENV}, now ${s} s)`,
    { cause }
  )
}

/**
 * Watch an attempt's silence: report waits, abort `idle` at the timeout. `showing` (a retry's
 * status, or a wait, is on screen) is cleared with `onWaiting(0)` when the stream moves or ends.
 */
function watchSilence(opts: ModelRequestOptions, idle: AbortController, showing: boolean): { alive(): void; stop(): void } {
  let last = Date.now()
  let reported = 0 // last waitedMs reported; 0 = not waiting
  // with a short idle timeout (tests, impatient users) the wait still shows before the abort
  const waitingAfter = Math.min(WAITING_AFTER_MS, opts.idleTimeoutMs / 2)
  const timer = setInterval(() => {
    const waited = Date.now() - last
    if (waited >= opts.idleTimeoutMs) {
      idle.abort(new Error(`no stream part for ${waited} ms`))
      return
    }
    if (waited >= waitingAfter && (reported === 0 || waited - reported >= 1000)) {
      reported = waited
      showing = true
      opts.onWaiting(waited)
    }
  }, Math.min(CHECK_MS, Math.max(10, Math.floor(opts.idleTimeoutMs / 4))))
  return {
    alive: () => {
      last = Date.now()
      reported = 0
      if (showing) {
        showing = false
        opts.onWaiting(0)
      }
    },
    stop: () => {
      clearInterval(timer)
      if (showing) opts.onWaiting(0)
      showing = false
    }
  }
}

/**
 * Whether a failed request may be sent again, and after how long the server asked to wait.
 * Retryable: an HTTP answer the SDK marks retryable (408, 409, 429, 5xx) and a connection refused,
 * reset or closed. Not: 4xx answers, errors inside a stream that had started, malformed responses.
 * @returns undefined when not retryable; `retryAfterMs` from `retry-after-ms` or `retry-after` (seconds or an HTTP date)
 */
export function retryVerdict(err: unknown): { reason: string; retryAfterMs?: number } | undefined {
  const inner = RetryError.isInstance(err) && err.lastError !== undefined ? err.lastError : err
  if (APICallError.isInstance(inner) && inner.statusCode !== undefined) {
    if (!inner.isRetryable) return undefined
    const retryAfterMs = parseRetryAfter(inner.responseHeaders)
    return { reason: `HTTP ${inner.statusCode}`, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }
  }
  const code = networkCode(err)
  return code ? { reason: `connection failed (${code})` } : undefined
}

/**
 * The wait a response asks for, in ms: `retry-after-ms` (ms), else `retry-after` as seconds or an
 * HTTP date (relative to now, at least 0). Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined
  const get = (name: string): string | undefined => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1]
  const ms = Number.parseFloat(get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms)
  const raw = get('retry-after')?.trim()
  if (!raw) return undefined
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000)
  const date = Date.parse(raw)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** A retryable connection error code in the cause chain (also inside an APICallError without status). */
function networkCode(err: unknown): string | undefined {
  const seen = new Set<unknown>()
  let cur: unknown = RetryError.isInstance(err) && err.lastError !== undefined ? err.lastError : err
  while (cur instanceof Error && !seen.has(cur) && seen.size < 10) {
    seen.add(cur)
    const code = (cur as { code?: unknown }).code
    if (typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code)) return code
    if (APICallError.isInstance(cur) && cur.statusCode === undefined && cur.message.startsWith('Cannot connect to API')) return 'cannot connect'
    cur = cur.cause
  }
  return undefined
}

/** Wait `ms`; false when Stop came first (or was already pressed). */
function sleepUnlessStopped(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      resolve(ok)
    }
    const onAbort = (): void => done(false)
    const timer = setTimeout(() => done(true), ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

const seconds = (ms: number): string => String(Math.round(ms / 100) / 10)

/**
 * The idle timeout from {@link STREAM_IDLE_TIMEOUT_ENV}, in ms (default {@link DEFAULT_STREAM_IDLE_TIMEOUT_S} s).
 * @param raw the setting's value in seconds (a positive number up to 3600), or undefined/empty for the default
 * @param name the setting named in the error
 * @throws CortexError('invalid_input') for anything else
 */
export function streamIdleTimeoutMs(raw: string | number | undefined, name = STREAM_IDLE_TIMEOUT_ENV): number {
  if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) return DEFAULT_STREAM_IDLE_TIMEOUT_S * 1000
  const s = Number(raw)
  if (!Number.isFinite(s) || s <= 0 || s > 3600) throw new CortexError('invalid_input', `${name}="${raw}" must be a number of seconds above 0 and at most 3600`)
  return Math.round(s * 1000)
}
