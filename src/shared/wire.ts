/**
 * Wire framing shared by the transport adapters of the contract: the Electron IPC channel names,
 * the `{ ok, value } | { ok: false, error }` result every request returns across a process
 * boundary, the WebSocket frames of the web host, and one generic dispatcher that routes a request
 * by name to the session API (which validates its input: see parseRequest). Pure TS + zod.
 */
import { z } from 'zod'
import { contract, type CortexApi, type RequestName, WireErrorSchema } from './contract'
import { toCortexError } from './errors'
import { EventEnvelopeSchema } from './events'

/** A serialized error: a stable `code` (see ErrorCode) and a one-line `message`. */
export type WireError = z.infer<typeof WireErrorSchema>

/** Result of one request across an adapter boundary. Never throws; failures travel as `error`. */
export type WireResult<T = unknown> = { ok: true; value: T } | { ok: false; error: WireError }

/** Prefix of every Electron IPC channel the app uses. */
export const IPC_PREFIX = 'cortex:'

/** Electron IPC channel of request `name` (ipcMain.handle / ipcRenderer.invoke): `cortex:<name>`. */
export function requestChannel(name: RequestName): string {
  return `${IPC_PREFIX}${name}`
}

/** Electron IPC channel carrying every EventEnvelope from main to the renderer. */
export const EVENT_CHANNEL = `${IPC_PREFIX}event`

/** Whether `name` is one of the contract's request names (own property, not a prototype key). */
export function isRequestName(name: unknown): name is RequestName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(contract.requests, name)
}

/**
 * Call `api[name]` with `input` as received. The input is not parsed here: the session service
 * validates every request once (parseRequest), whichever adapter it came through.
 * @returns `{ ok: true, value }` with the method's result, or `{ ok: false, error }` where error.code
 *   is `invalid_input` for an unknown name or a schema failure, the thrown CortexError's code, or
 *   `internal` for anything else thrown. Never rejects.
 */
export async function dispatchRequest(api: CortexApi, name: unknown, input: unknown): Promise<WireResult> {
  if (!isRequestName(name)) {
    return { ok: false, error: { code: 'invalid_input', message: `unknown request: ${String(name)}` } }
  }
  try {
    const method = api[name] as (input: unknown) => Promise<unknown>
    const value = await method.call(api, input ?? {})
    return { ok: true, value }
  } catch (err) {
    const e = toCortexError(err)
    return { ok: false, error: { code: e.code, message: e.message } }
  }
}

/**
 * Turn a failed WireResult into an Error for a caller of CortexApi. The message is
 * `<message>` and the error carries `code`; across Electron's contextBridge only the message
 * survives, so it is prefixed `[code] `.
 */
export function wireErrorToError(error: WireError): Error & { code: string } {
  return Object.assign(new Error(`[${error.code}] ${error.message}`), { code: error.code })
}

/** Web host frame, client → server: call request `method` with `input`; `id` pairs the response. */
export const WsRequestFrameSchema = z.object({
  kind: z.literal('request'),
  id: z.number().int().nonnegative(),
  method: z.string(),
  input: z.unknown()
})
/** See {@link WsRequestFrameSchema}. */
export type WsRequestFrame = z.infer<typeof WsRequestFrameSchema>

/**
 * Web host frame, server → client: the response to request `id`. Checking a response against this
 * alone (not {@link WsServerFrameSchema}) spares the page zod's one-time walk of the whole event
 * schema on its first parse (~40 ms in a loaded profile), which otherwise lands on the first
 * response — before the first paint of a session's history (issue 24).
 */
export const WsResponseFrameSchema = z.object({
  kind: z.literal('response'),
  id: z.number().int().nonnegative(),
  result: z.union([
    z.object({ ok: z.literal(true), value: z.unknown() }),
    z.object({ ok: z.literal(false), error: WireErrorSchema })
  ])
})

/** Web host frames, server → client: the response to request `id`, or one pushed event envelope. */
export const WsServerFrameSchema = z.discriminatedUnion('kind', [
  WsResponseFrameSchema,
  z.object({ kind: z.literal('event'), envelope: EventEnvelopeSchema })
])
/** See {@link WsServerFrameSchema}. */
export type WsServerFrame = z.infer<typeof WsServerFrameSchema>

/** Path of the web host's WebSocket endpoint; the token travels as `?token=`. */
export const WS_PATH = '/ws'
/** HTTP path of the web host's token check: GET `?token=` answers 204 for the right token, 401 otherwise. */
export const WS_AUTH_PATH = '/ws-auth'
