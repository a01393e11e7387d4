/**
 * Turn whatever the AI SDK throws or emits as an `error` stream part into a {@link CortexError}
 * the user can act on. Shapes handled (ai 7.0.173, @ai-sdk/provider-utils; see
 * node_modules/ai/dist/index.d.ts and provider-utils' `handleFetchError` / `createJsonErrorResponseHandler`):
 * - `RetryError` (`AI_RetryError`, `lastError`, `errors[]`) wrapping any of the below after
 *   `maxRetries` > 0 attempts → classified by its last error.
 * - `APICallError` (`AI_APICallError`): `statusCode` set → the server answered with an HTTP error
 *   (`message` is the server's own message, extracted by the provider's error schema);
 *   `statusCode` undefined + `Cannot connect to API: …` / a network `code` in the cause chain →
 *   connection refused, DNS failure, reset or timeout.
 * - `StreamProviderError` (`AI_StreamProviderError`): an error event inside an SSE stream that had
 *   already started (Anthropic `event: error`, OpenAI Responses `error` / `response.failed`).
 * - `TimeoutError` (from streamText's `timeout` option) → unreachable; raw `TypeError('fetch failed')`
 *   with a system error cause → unreachable.
 * - `LoadAPIKeyError` → provider_config.
 * Aborts (Stop) are not errors: test with {@link isAbortError} first.
 */
import { APICallError, LoadAPIKeyError, RetryError, StreamProviderError } from 'ai'
import { CortexError } from '../../shared/errors'
import { DEFAULT_BASE_URLS, settingNames, type ModelSettings } from './model-settings'

/** System / undici error codes that mean "no answer from the server". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'EPIPE', 'ECONNABORTED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ConnectionRefused', 'ConnectionClosed', 'FailedToOpenSocket'
])

/** Longest server message kept in a user-facing line. */
const MAX_SERVER_MESSAGE = 300

/**
 * Whether `err` is an abort (Stop pressed, `abortSignal` fired) rather than a provider failure:
 * an `AbortError` / `ResponseAborted` anywhere in the cause chain, or a `RetryError` with reason `abort`.
 * A `TimeoutError` (streamText's `timeout`) is NOT an abort here: it classifies as unreachable.
 */
export function isAbortError(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e instanceof Error && (e.name === 'AbortError' || e.name === 'ResponseAborted')) return true
    if (RetryError.isInstance(e) && e.reason === 'abort') return true
  }
  return false
}

/**
 * Classify a provider failure.
 *
 * @param err anything thrown by `streamText` consumption or carried by a `{ type: 'error', error }`
 *   fullStream part; CortexErrors pass through unchanged.
 * @param settings the settings the request used (names the provider, base URL and settings to fix).
 * @returns `provider_unreachable` (no HTTP answer: refused, DNS, reset, timeout — the message names
 *   the base URL and `--base-url (or X_BASE_URL)`), `provider_config` (no API key), or
 *   `provider_error` (the server answered with an error: HTTP status and the server's message, plus
 *   a hint: 401/403 → the key env var, 404 → the model/base URL, 429 → rate limit). Always one line.
 *   The original error is kept as `cause`.
 */
export function classifyProviderError(err: unknown, settings: ModelSettings): CortexError {
  if (err instanceof CortexError) return err
  const names = settingNames(settings.provider)
  const baseUrl = settings.baseUrl ?? (settings.provider === 'openai-compatible' ? '(no base URL)' : DEFAULT_BASE_URLS[settings.provider])
  const who = settings.provider
  const inner = RetryError.isInstance(err) && err.lastError !== undefined ? err.lastError : err

  if (LoadAPIKeyError.isInstance(inner)) {
    return new CortexError('provider_config', `${who} needs an API key: set ${names.apiKey}`, { cause: err })
  }

  if (APICallError.isInstance(inner) && inner.statusCode !== undefined) {
    return httpError(inner.statusCode, serverMessage(inner.message, inner.responseBody), settings, err)
  }

  if (StreamProviderError.isInstance(inner)) {
    const kind = inner.type ?? (inner.code !== undefined ? String(inner.code) : undefined)
    const status = inner.statusCode !== undefined ? ` (HTTP ${inner.statusCode})` : ''
    return new CortexError(
      'provider_error',
      `${who} reported an error mid-stream${status}${kind ? ` [${kind}]` : ''}: ${oneLine(inner.message)}`,
      { cause: err }
    )
  }

  const network = networkCode(inner)
  if (network !== undefined) {
    return new CortexError(
      'provider_unreachable',
      `Cannot reach ${who} at ${baseUrl} (${network}): check ${names.baseUrl}${isLocal(baseUrl) ? ' and that the server is running' : ' and your network connection'}`,
      { cause: err }
    )
  }

  const message = inner instanceof Error ? inner.message : String(inner)
  return new CortexError('provider_error', `${who} request failed: ${oneLine(message)}`, { cause: err })
}

/** provider_error for an HTTP status, with a hint naming the setting most likely at fault. */
function httpError(status: number, message: string, settings: ModelSettings, cause: unknown): CortexError {
  const names = settingNames(settings.provider)
  let hint = ''
  if (status === 401 || status === 403) hint = ` — check ${names.apiKey}`
  else if (status === 404) hint = ` — check ${names.model} ("${settings.modelId}") and ${names.baseUrl}`
  else if (status === 429) hint = ' — rate limited or out of quota; wait and retry'
  else if (status >= 500) hint = ' — the server failed; retry later'
  return new CortexError('provider_error', `${settings.provider} returned HTTP ${status}: ${message}${hint}`, { cause })
}

/** The server's message, falling back to the raw body when the SDK only had the status text. */
function serverMessage(message: string, body: string | undefined): string {
  const m = oneLine(message)
  if (m && !/^(bad request|unauthorized|forbidden|not found|internal server error)$/i.test(m)) return m
  const b = body ? oneLine(body) : ''
  return b || m || '(no message)'
}

/** Collapse whitespace to one line and cap the length. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > MAX_SERVER_MESSAGE ? `${flat.slice(0, MAX_SERVER_MESSAGE - 1)}…` : flat
}

/** Errors along `.cause` (cycle-safe, bounded). */
function* causeChain(err: unknown): Generator<unknown> {
  const seen = new Set<unknown>()
  let cur: unknown = err
  while (cur !== undefined && cur !== null && !seen.has(cur) && seen.size < 10) {
    seen.add(cur)
    yield cur
    cur = cur instanceof Error ? cur.cause : undefined
  }
}

/** A network failure's code (e.g. ECONNREFUSED, TimeoutError), or undefined if `err` is not one. */
function networkCode(err: unknown): string | undefined {
  for (const e of causeChain(err)) {
    if (!(e instanceof Error)) continue
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code
    if (e.name === 'TimeoutError') return 'timeout'
  }
  for (const e of causeChain(err)) {
    if (APICallError.isInstance(e) && e.statusCode === undefined && e.message.startsWith('Cannot connect to API')) return 'connection failed'
    if (e instanceof TypeError && /^(fetch failed|failed to fetch)$/i.test(e.message)) return 'connection failed'
  }
  return undefined
}

/** Whether a base URL points at this machine (then "is the server running?" is the likely fix). */
function isLocal(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host === '::1'
  } catch {
    return false // not a URL: certainly not a local one
  }
}
