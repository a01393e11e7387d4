/**
 * CortexApi over the web host's WebSocket (browser build). Each request is a `{ kind: 'request', id,
 * method, input }` frame answered by a `response` frame with the same id; `event` frames feed
 * onEvent listeners. The socket reconnects with backoff; requests made while it is down wait for
 * it, and requests in flight when it drops reject with `[disconnected] …`.
 */
import { createApiStub, type CortexApi } from '../../shared/contract'
import { wireErrorToError, WsServerFrameSchema, type WsRequestFrame } from '../../shared/wire'

type Envelope = Parameters<Parameters<CortexApi['onEvent']>[0]>[0]

/** Connection state of the WebSocket client. */
export type ConnectionState = 'connecting' | 'open' | 'closed'

/** The WebSocket CortexApi plus its connection state. */
export type WsCortexApi = CortexApi & {
  /** Current state. */
  connection(): ConnectionState
  /** Subscribe to state changes; returns the unsubscribe function. */
  onConnection(listener: (state: ConnectionState) => void): () => void
}

/**
 * Connect to `url` (`ws://127.0.0.1:<port>/ws?token=…`).
 * @param url the endpoint including its token
 * Requests reject with Error(`[code] message`) when the host answers with an error.
 */
export function createWsApi(url: string): WsCortexApi {
  let socket: WebSocket | undefined
  let state: ConnectionState = 'connecting'
  let nextId = 1
  let retryMs = 250
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()
  const queue: string[] = []
  const eventListeners = new Set<(e: Envelope) => void>()
  const stateListeners = new Set<(s: ConnectionState) => void>()

  const setState = (s: ConnectionState): void => {
    state = s
    for (const l of stateListeners) l(s)
  }

  const connect = (): void => {
    setState('connecting')
    const ws = new WebSocket(url)
    socket = ws
    ws.onopen = () => {
      retryMs = 250
      setState('open')
      for (const text of queue.splice(0)) ws.send(text)
    }
    ws.onmessage = (msg) => {
      let raw: unknown
      try {
        raw = JSON.parse(String(msg.data))
      } catch {
        return // the host only sends JSON frames: a non-JSON message carries no response or event
      }
      const frame = WsServerFrameSchema.safeParse(raw)
      if (!frame.success) return
      if (frame.data.kind === 'event') {
        for (const l of eventListeners) l(frame.data.envelope)
        return
      }
      const waiter = pending.get(frame.data.id)
      if (!waiter) return
      pending.delete(frame.data.id)
      const result = frame.data.result
      if (result.ok) waiter.resolve(result.value)
      else waiter.reject(wireErrorToError(result.error))
    }
    ws.onclose = () => {
      if (socket !== ws) return
      for (const [id, waiter] of pending) {
        pending.delete(id)
        waiter.reject(wireErrorToError({ code: 'disconnected', message: 'the connection to Cortex closed' }))
      }
      setState('closed')
      setTimeout(connect, retryMs)
      retryMs = Math.min(retryMs * 2, 5000)
    }
  }

  const call = (method: string, input: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      const text = JSON.stringify({ kind: 'request', id, method, input } satisfies WsRequestFrame)
      if (socket && socket.readyState === WebSocket.OPEN) socket.send(text)
      else queue.push(text)
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
    }
  }
}

/**
 * The WebSocket endpoint for this page: same host, path `/ws`, the page's `?token=`.
 * @returns undefined when the page URL carries no token
 */
export function wsUrlFromLocation(location: Location): string | undefined {
  const token = new URLSearchParams(location.search).get('token')
  if (!token) return undefined
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:'
  return `${scheme}//${location.host}/ws?token=${encodeURIComponent(token)}`
}
