// requestModel's retry decisions on real AI SDK error objects and real timers: the idle timeout
// aborts an attempt and retries once, then provider_timeout; retryable HTTP statuses back off as
// `retry-after` says; 4xx is not retried; Stop ends a backoff wait and nothing is retried after it.
// (Over real HTTP through the scripted model server: test/session/turn-control.test.ts.)
import { APICallError } from 'ai'
import { describe, expect, it } from 'vitest'
import { CortexError } from '../../shared/errors'
import { parseRetryAfter, requestModel, retryVerdict, streamIdleTimeoutMs, type ModelRequestOptions } from './model-request'

const apiError = (statusCode: number, headers: Record<string, string> = {}): APICallError =>
  new APICallError({ message: `HTTP ${statusCode}`, url: 'http://127.0.0.1:9/v1/chat/completions', requestBodyValues: {}, statusCode, responseHeaders: headers })

function options(signal: AbortSignal, over: Partial<ModelRequestOptions> = {}): ModelRequestOptions & { waits: number[]; retries: Array<[number, number, string]> } {
  const waits: number[] = []
  const retries: Array<[number, number, string]> = []
  return {
    signal,
    idleTimeoutMs: 200,
    onWaiting: (ms) => waits.push(ms),
    onRetry: (attempt, delayMs, reason) => retries.push([attempt, delayMs, reason]),
    classifyError: (err) => new CortexError('provider_error', err instanceof Error ? err.message : String(err)),
    ...over,
    waits,
    retries
  }
}

/** An attempt that never sends anything and rejects when its signal aborts. */
const silent = (ctx: { signal: AbortSignal }): Promise<string> =>
  new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true }))

describe('parseRetryAfter', () => {
  it('reads retry-after-ms, retry-after seconds and an HTTP date', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '250' })).toBe(250)
    expect(parseRetryAfter({ 'Retry-After': '2' })).toBe(2000)
    expect(parseRetryAfter({ 'retry-after': new Date(10_000 + 3000).toUTCString() }, 10_000)).toBe(3000)
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined()
    expect(parseRetryAfter(undefined)).toBeUndefined()
  })
})

describe('retryVerdict', () => {
  it('retries 429 and 5xx with their retry-after, not 400/401/404', () => {
    expect(retryVerdict(apiError(429, { 'retry-after': '1' }))).toEqual({ reason: 'HTTP 429', retryAfterMs: 1000 })
    expect(retryVerdict(apiError(503))).toEqual({ reason: 'HTTP 503' })
    for (const s of [400, 401, 404]) expect(retryVerdict(apiError(s))).toBeUndefined()
  })
  it('retries a connection reset found in the cause chain', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
    expect(retryVerdict(new TypeError('fetch failed', { cause: reset }))).toEqual({ reason: 'connection failed (ECONNRESET)' })
    expect(retryVerdict(new Error('other'))).toBeUndefined()
  })
})

describe('requestModel', () => {
  it('aborts a silent attempt at the idle timeout, retries once, then throws provider_timeout naming the setting', async () => {
    const o = options(new AbortController().signal)
    let attempts = 0
    const err = await requestModel(o, (ctx) => (attempts++, silent(ctx)), () => 'stopped').catch((e: unknown) => e)
    expect(attempts).toBe(2)
    expect(err).toBeInstanceOf(CortexError)
    expect((err as CortexError).code).toBe('provider_timeout')
    expect((err as CortexError).message).toMatch(/sent nothing for 0\.2 s.*CORTEX_STREAM_IDLE_TIMEOUT/)
    expect(o.retries).toEqual([[2, 0, 'the model sent nothing for 0.2 s']])
    expect(o.waits.some((ms) => ms >= 100)).toBe(true) // reported from half the timeout
  })

  it('keeps an attempt that stays alive past the timeout', async () => {
    const o = options(new AbortController().signal)
    const result = await requestModel(o, async (ctx) => {
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 60))
        ctx.alive()
      }
      return 'done'
    }, () => 'stopped')
    expect(result).toBe('done')
    expect(o.retries).toEqual([])
  })

  it('retries a 429 after its retry-after, up to maxRetries, and does not retry a 401', async () => {
    const o = options(new AbortController().signal, { maxRetries: 2 })
    let n = 0
    const result = await requestModel(o, async () => {
      if (n++ < 2) throw apiError(429, { 'retry-after-ms': '30' })
      return 'ok'
    }, () => 'stopped')
    expect(result).toBe('ok')
    expect(o.retries).toEqual([[2, 30, 'HTTP 429'], [3, 30, 'HTTP 429']])

    const p = options(new AbortController().signal)
    let m = 0
    await expect(requestModel(p, async () => (m++, Promise.reject(apiError(401))), () => 'stopped')).rejects.toMatchObject({ code: 'provider_error' })
    expect(m).toBe(1)
  })

  it('clears a retry status (onWaiting 0) once the retried stream moves', async () => {
    const o = options(new AbortController().signal)
    let n = 0
    const result = await requestModel(o, async (ctx) => {
      if (n++ === 0) throw apiError(503, { 'retry-after-ms': '10' })
      ctx.alive()
      ctx.alive()
      return 'ok'
    }, () => 'stopped')
    expect(result).toBe('ok')
    expect(o.waits).toEqual([0])
  })

  it('does not retry when the server asks to wait longer than a minute', async () => {
    const o = options(new AbortController().signal)
    let n = 0
    await expect(requestModel(o, async () => (n++, Promise.reject(apiError(429, { 'retry-after': '3600' }))), () => 'stopped')).rejects.toMatchObject({ code: 'provider_error' })
    expect(n).toBe(1)
  })

  it('ends a backoff wait at Stop and never retries after it', async () => {
    const stop = new AbortController()
    const o = options(stop.signal, { onRetry: () => setTimeout(() => stop.abort(), 20) })
    let n = 0
    const t0 = Date.now()
    const result = await requestModel(o, async () => (n++, Promise.reject(apiError(503, { 'retry-after': '30' }))), () => 'stopped')
    expect(result).toBe('stopped')
    expect(n).toBe(1)
    expect(Date.now() - t0).toBeLessThan(10_000) // hang guard: the backoff asked for 30 s
  })
})

describe('streamIdleTimeoutMs', () => {
  it('defaults to 120 s and refuses nonsense', () => {
    expect(streamIdleTimeoutMs(undefined)).toBe(120_000)
    expect(streamIdleTimeoutMs('3')).toBe(3000)
    expect(() => streamIdleTimeoutMs('0')).toThrow(/CORTEX_STREAM_IDLE_TIMEOUT/)
    expect(() => streamIdleTimeoutMs('abc')).toThrow(CortexError)
  })
})
