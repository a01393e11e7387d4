/**
 * Helpers of mcp/connection.ts: listing a server's prompts at connect, racing a promise against
 * an abort signal (Stop, a deadline, the connection's close), and telling an HTTP 4xx refusal.
 */
import type { Client, Prompt } from '@modelcontextprotocol/client'
import { errorFields, type Logger } from '../../../shared/logger-types'

/** Most prompts taken from one server's `prompts/list` (the rest are left out and logged). */
export const MCP_MAX_PROMPTS = 200

/** A server's prompts (all pages, capped at {@link MCP_MAX_PROMPTS}); a server whose listing fails simply offers none (logged). */
export async function listPrompts(client: Client, server: string, signal: AbortSignal, timeoutMs: number, logger: Logger): Promise<Prompt[]> {
  if (!client.getServerCapabilities()?.prompts) return []
  try {
    const { prompts } = await client.listPrompts(undefined, { signal, timeout: timeoutMs })
    if (prompts.length > MCP_MAX_PROMPTS) logger.warn('MCP server lists more prompts than are offered', { server, prompts: prompts.length, offered: MCP_MAX_PROMPTS })
    return prompts.slice(0, MCP_MAX_PROMPTS)
  } catch (err) {
    logger.warn('MCP server\'s prompts could not be listed', { server, ...errorFields(err) })
    return []
  }
}

/** `promise`, or an AbortError (the signal's reason when it is one) as soon as `signal` aborts. */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(reasonOf(signal))
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(reasonOf(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e instanceof Error ? e : new Error(String(e)))
      }
    )
  })
}

/** The signal's reason when it is an Error, else an AbortError. */
function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : abortError()
}

/** A DOMException named AbortError ("stopped"). */
export function abortError(): Error {
  return new DOMException('stopped', 'AbortError')
}

/**
 * Whether `err` (or an error it wraps) is an HTTP 4xx answer of the server other than 401 and 403
 * (those ask for credentials, not another transport): the SDK's SdkHttpError carries the status; a
 * plain error names it as "(HTTP 4xx)".
 */
export function isHttp4xx(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const status = (e as { status?: unknown }).status
    if (typeof status === 'number') return status >= 400 && status < 500 && status !== 401 && status !== 403
    if (/\(HTTP 4(?!01|03)\d\d\)/.test(e.message)) return true
  }
  return false
}
