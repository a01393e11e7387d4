/**
 * CortexApi over the web host's WebSocket (browser build). Each request is a `{ kind: 'request', id,
 * method, input }` frame answered by a `response` frame with the same id; `event` frames feed
 * onEvent listeners.
 *
 * Delivery rules:
 * - A request is sent at most once, and never after it was reported as failed: requests in flight
 *   when the socket drops reject with `[disconnected]`; requests made while it is down wait for
 *   the next connection attempt only, and reject with `[disconnected]` (unsent, and dropped) when
 *   that attempt fails. Nothing is replayed after a reconnect.
 * - Reconnects back off exponentially with jitter (a delay drawn from [cap/2, cap], cap doubling
 *   from `baseDelayMs` to `maxDelayMs`), reset by a successful open.
 * - A socket that closes before opening asks the host's token check (`/ws-auth?token=`); a 401
 *   there (the token is missing or stale: the host restarted) stops retrying for good, with state
 *   `unauthorized`, and every waiting request rejects with `[unauthorized]`.
 * Free of DOM types so it runs in tests under Node with the `ws` package's client.
 */
import { createApiStub, type CortexApi } from '../../shared/contract'
import { WS_AUTH_PATH, wireErrorToError, WsResponseFrameSchema, WsServerFrameSchema, type WsRequestFrame } from '../../shared/wire'
import { backoffDelay } from '../../shared/backoff'

type Envelope = Parameters<Parameters<CortexApi['onEvent']>[0]>[0]

/** Connection state of the WebSocket client; `unauthorized` is final (the host refused the token). */
export type ConnectionState = 'connecting' | 'open' | 'closed' | 'unauthorized'

/** The part of a WebSocket the client uses (the browser's, or the `ws` package's in tests). */
export interface SocketLike {
  readonly readyState: number
  send(text: string): void
  close(): void
  onopen: ((ev: unknown) => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
  onclose: ((ev: unknown) => void) | null
  onerror: ((ev: unknown) => void) | null
}

/** Options of {@link createWsApi}. */
export interface WsApiOptions {
  /** Opens a socket to `url` (default: the global WebSocket). */
  connect?: (url: string) => SocketLike
  /** HTTP GET of the token check; resolves with the status code (default: global fetch). Rejects on a network failure. */
  checkToken?: (url: string) => Promise<number>
  /** First reconnect cap (ms, default 250). */
  baseDelayMs?: number
  /** Largest reconnect cap (ms, default 10,000). */
  maxDelayMs?: number
  /** Random source in [0, 1) for the jitter (default Math.random). */
  random?: () => number
}

/** The WebSocket CortexApi plus its connection state. */
export type WsCortexApi = CortexApi & {
  /** Current state. */
  connection(): ConnectionState
  /** Subscribe to state changes; returns the unsubscribe function. */
  onConnection(listener: (state: ConnectionState) => void): () => void
  /** Close the socket and stop reconnecting (tests, page unload). */
  dispose(): void
}

const OPEN = 1

/**
 * The token-check URL of a WebSocket endpoint: same host over http(s), path {@link WS_AUTH_PATH},
 * the same `?token=`.
 */
export function authUrlOf(wsUrl: string): string {
  const u = new URL(wsUrl)
  u.protocol = u.protocol === 'wss:' ? 'https:' : 'http:'
  u.pathname = WS_AUTH_PATH
  return u.toString()
}

/**
 * Connect to `url` (`ws://127.0.0.1:<port>/ws?token=…`) and keep reconnecting (see the module comment).
 * Requests reject with Error(`[code] message`) when the host answers with an error.
 */
export function createWsApi(url: string, options: WsApiOptions = {}): WsCortexApi {
  const open = options.connect ?? ((u: string) => new (globalThis as unknown as { WebSocket: new (u: string) => SocketLike }).WebSocket(u))
  const checkToken = options.checkToken ?? (async (u: string) => (await fetch(u)).status)
  const random = options.random ?? Math.random
  let socket: SocketLike | undefined
  let state: ConnectionState = 'connecting'
  let nextId = 1
  let failures = 0
  let disposed = false
  let timer: ReturnType<typeof setTimeout> | undefined
  /** Requests sent on the open socket, waiting for their response. */
  const inFlight = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()
  /** Requests made while the socket was not open: sent on the next open, or rejected (and dropped) when the attempt fails. */
  const waiting = new Map<number, { text: string; resolve(v: unknown): void; reject(e: Error): void }>()
  const eventListeners = new Set<(e: Envelope) => void>()
  const stateListeners = new Set<(s: ConnectionState) => void>()

  const setState = (s: ConnectionState): void => {
    state = s
    for (const l of stateListeners) l(s)
  }
  const failAll = (code: string, message: string): void => {
    const err = (): Error => wireErrorToError({ code, message })
    for (const [id, w] of inFlight) {
      inFlight.delete(id)
      w.reject(err())
    }
    for (const [id, w] of waiting) {
      waiting.delete(id)
      w.reject(err())
    }
  }
  const scheduleRetry = (): void => {
    if (disposed || state === 'unauthorized') return
    failures++
    timer = setTimeout(connect, backoffDelay(failures, random, options.baseDelayMs, options.maxDelayMs))
  }

  function connect(): void {
    if (disposed) return
    setState('connecting')
    let opened = false
    let ws: SocketLike
    try {
      ws = open(url)
    } catch {
      failAll('disconnected', 'could not connect to Cortex')
      setState('closed')
      return scheduleRetry()
    }
    socket = ws
    ws.onopen = () => {
      opened = true
      failures = 0
      setState('open')
      for (const [id, w] of waiting) {
        waiting.delete(id)
        inFlight.set(id, w)
        ws.send(w.text)
      }
    }
    ws.onmessage = (msg) => {
      let raw: unknown
      try {
        raw = JSON.parse(String(msg.data))
      } catch {
        return // the host only sends JSON frames: a non-JSON message carries no response or event
      }
      // a response is checked on its own: the event schema's first use waits for the first event
      const isResponse = typeof raw === 'object' && raw !== null && (raw as { kind?: unknown }).kind === 'response'
      const frame = (isResponse ? WsResponseFrameSchema : WsServerFrameSchema).safeParse(raw)
      if (!frame.success) return
      if (frame.data.kind === 'event') {
        for (const l of eventListeners) l(frame.data.envelope)
        return
      }
      const waiter = inFlight.get(frame.data.id)
      if (!waiter) return
      inFlight.delete(frame.data.id)
      const result = frame.data.result
      if (result.ok) waiter.resolve(result.value)
      else waiter.reject(wireErrorToError(result.error))
    }
    ws.onerror = () => undefined // onclose follows
    ws.onclose = () => {
      if (socket !== ws) return
      socket = undefined
      // everything not answered has now been reported as failed: it is never sent again
      failAll('disconnected', 'the connection to Cortex closed; the request may not have run')
      if (disposed) return setState('closed')
      setState('closed')
      if (opened) return scheduleRetry()
      // refused before opening: a stale or missing token is final, anything else is retried
      checkToken(authUrlOf(url)).then(
        (status) => {
          if (status === 401) {
            setState('unauthorized')
            failAll('unauthorized', 'the page\'s token is not valid for this Cortex server')
          } else scheduleRetry()
        },
        () => scheduleRetry()
      )
    }
  }

  const call = (method: string, input: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (state === 'unauthorized') {
        return reject(wireErrorToError({ code: 'unauthorized', message: 'the page\'s token is not valid for this Cortex server; reopen the address `cortex serve` printed' }))
      }
      if (disposed) return reject(wireErrorToError({ code: 'disconnected', message: 'the client was closed' }))
      const id = nextId++
      const text = JSON.stringify({ kind: 'request', id, method, input } satisfies WsRequestFrame)
      if (socket && socket.readyState === OPEN && state === 'open') {
        inFlight.set(id, { resolve, reject })
        socket.send(text)
      } else waiting.set(id, { text, resolve, reject })
    })

  const stub = createApiStub(call, (listener: (e: Envelope) => void) => {
    eventListeners.add(listener)
    return () => void eventListeners.delete(listener)
  })
  connect()
  return {
    ...stub,
    connection: () => state,
    onConnection(listener: (s: ConnectionState) => void) {
      stateListeners.add(listener)
      return () => void stateListeners.delete(listener)
    },
    dispose() {
      disposed = true
      if (timer) clearTimeout(timer)
      socket?.close()
      failAll('disconnected', 'the client was closed')
    }
  }
}

/**
 * The WebSocket endpoint for this page: same host, path `/ws`, the page's `?token=`.
 * @param location the page's location (search, protocol, host)
 * @returns undefined when the page URL carries no token
 */
export function wsUrlFromLocation(location: { search: string; protocol: string; host: string }): string | undefined {
  const token = new URLSearchParams(location.search).get('token')
  if (!token) return undefined
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:'
  return `${scheme}//${location.host}/ws?token=${encodeURIComponent(token)}`
}
