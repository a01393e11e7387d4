/**
 * The web host: the built renderer over HTTP and the session API over a WebSocket, both on
 * 127.0.0.1 only. A random token (in the page URL) authenticates WebSocket clients; connections
 * with a missing or wrong token, or an Origin other than the host's own, are refused before the
 * upgrade. Requests go to the session API (which validates them against the contract); every
 * event goes to every client, within each client's unread-bytes bound (client-sender.ts: a client
 * that stops reading loses its output events, then its connection). Internal request failures and
 * dropped clients are logged. Closing is bounded whatever the clients do.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { CortexApi } from '../shared/contract'
import { CortexError } from '../shared/errors'
import { NOOP_LOGGER, type Logger } from '../shared/logger-types'
import { dispatchRequest, WS_AUTH_PATH, WS_PATH, WsRequestFrameSchema, type WsServerFrame } from '../shared/wire'
import { createClientSender, type ClientLimits, type ClientSender } from './client-sender'
import { securityHeaders, serveStatic } from './static-files'

/** How long (ms) {@link WebHost.close} lets clients answer the close frame before cutting them off. */
export const CLOSE_GRACE_MS = 1000

/** Options of {@link startWebHost}. */
export interface WebHostOptions {
  /** The session API to expose (the same object the CLI and Electron IPC use). */
  api: CortexApi
  /** Absolute folder of the built renderer (out/renderer, containing index.html). */
  rendererDir: string
  /** TCP port; 0 (default) picks a free one. */
  port?: number
  /** Bind address; only loopback is allowed: '127.0.0.1' (default). */
  host?: '127.0.0.1'
  /** Token clients must present; default 32 random bytes as hex. Tests may pass their own. */
  token?: string
  /** Largest accepted WebSocket message in bytes (default 16 MiB: a message with two 5 MiB images in base64). */
  maxPayload?: number
  /** Where internal request failures and dropped slow clients are logged (default nowhere). */
  logger?: Logger
  /** Unread-bytes bounds of each client (default client-sender.ts's constants); tests may lower them. */
  clientLimits?: ClientLimits
}

/** A running web host. */
export interface WebHost {
  /** URL to open in a browser, including `?token=…`: `http://127.0.0.1:<port>/?token=<token>`. */
  url: string
  /** Origin of the page: `http://127.0.0.1:<port>`. WebSocket clients must send it as Origin. */
  origin: string
  /** WebSocket endpoint without the token: `ws://127.0.0.1:<port>/ws`. */
  wsUrl: string
  /** The bound TCP port. */
  port: number
  /** The token WebSocket clients must pass as `?token=`. */
  token: string
  /** Number of authenticated WebSocket clients connected now. */
  clientCount(): number
  /**
   * Stop accepting, close every client (code 1001) and the HTTP server. A client that has not
   * answered the close within {@link CLOSE_GRACE_MS} is cut off, so this resolves within about
   * that long whatever the clients do. Idempotent.
   */
  close(): Promise<void>
}

/** Constant-time comparison of two token strings. */
function tokenMatches(given: string | null, expected: string): boolean {
  if (given === null) return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length}\r\n\r\n${reason}`)
}

/**
 * Start the web host.
 * @returns once listening; rejects with CortexError `internal` when `rendererDir/index.html` is
 *   missing, `invalid_input` for a non-loopback host, or the listen error (e.g. EADDRINUSE)
 * Refusals (before the WebSocket upgrade): 401 for a missing or wrong token, 403 for a missing or
 * foreign Origin, 404 for a path other than `/ws`. HTTP requests with a foreign Host header get 421
 * (DNS-rebinding guard).
 */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const host = options.host ?? '127.0.0.1'
  if (host !== '127.0.0.1') throw new CortexError('invalid_input', 'the web host binds 127.0.0.1 only')
  if (!existsSync(join(options.rendererDir, 'index.html'))) {
    throw new CortexError('internal', `renderer build not found at ${options.rendererDir}: run \`npm run build\` first`)
  }
  const token = options.token ?? randomBytes(32).toString('hex')
  const { api } = options
  let origin = ''
  let headers: Record<string, string> = {}
  const hostOk = (req: IncomingMessage): boolean => req.headers.host === origin.slice('http://'.length)

  const server = createServer((req, res) => {
    if (!hostOk(req)) {
      res.writeHead(421, { 'Content-Type': 'text/plain' })
      return void res.end('misdirected request')
    }
    // the page's client asks here whether a refused socket was refused for its token (stale page, restarted host)
    if ((req.url ?? '').split('?')[0] === WS_AUTH_PATH) {
      const given = new URL(req.url ?? '/', origin).searchParams.get('token')
      res.writeHead(tokenMatches(given, token) ? 204 : 401, { 'Cache-Control': 'no-store' })
      return void res.end()
    }
    void serveStatic(options.rendererDir, headers, req, res)
  })
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload ?? 16 * 1024 * 1024 })
  const clients = new Map<WebSocket, ClientSender>()
  const logger = options.logger ?? NOOP_LOGGER

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    // An absolute-form target such as `http://[/ws` makes URL throw: refuse it, never crash the host.
    let url: URL
    try {
      url = new URL(req.url ?? '/', origin)
    } catch {
      return refuseUpgrade(socket, 400, 'Bad Request') // the client is told
    }
    if (url.pathname !== WS_PATH) return refuseUpgrade(socket, 404, 'Not Found')
    if (!tokenMatches(url.searchParams.get('token'), token)) return refuseUpgrade(socket, 401, 'Unauthorized')
    if (req.headers.origin !== origin || !hostOk(req)) return refuseUpgrade(socket, 403, 'Forbidden')
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  })

  wss.on('connection', (ws: WebSocket) => {
    const sender = createClientSender(ws, logger, options.clientLimits)
    clients.set(ws, sender)
    ws.on('close', () => clients.delete(ws))
    ws.on('error', () => clients.delete(ws))
    ws.on('message', (data, isBinary) => {
      if (isBinary) return ws.close(1003, 'text frames only')
      let raw: unknown
      try {
        raw = JSON.parse(String(data))
      } catch {
        return ws.close(1007, 'invalid JSON') // the client is told by the close code
      }
      const frame = WsRequestFrameSchema.safeParse(raw)
      if (!frame.success) return ws.close(1008, 'invalid frame')
      const { id, method, input } = frame.data
      void dispatchRequest(api, method, input).then((result) => {
        if (!result.ok && result.error.code === 'internal') logger.error('web request failed', { method, ...result.error })
        sender.send({ kind: 'response', id, result })
      })
    })
  })

  const unsubscribe = api.onEvent((envelope) => {
    const frame: WsServerFrame = { kind: 'event', envelope }
    const text = JSON.stringify(frame)
    for (const sender of clients.values()) sender.send(frame, text)
  })

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', rejectListen)
      resolveListen()
    })
  }).catch((err: unknown) => {
    unsubscribe()
    throw err
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new CortexError('internal', 'web host: no TCP address')
  const port = address.port
  origin = `http://${host}:${port}`
  headers = securityHeaders(`ws://${host}:${port}`)

  let closing: Promise<void> | undefined
  return {
    url: `${origin}/?token=${token}`,
    origin,
    wsUrl: `ws://${host}:${port}${WS_PATH}`,
    port,
    token,
    clientCount: () => clients.size,
    close() {
      closing ??= new Promise<void>((done) => {
        unsubscribe()
        for (const ws of clients.keys()) ws.close(1001, 'server closing')
        // a client that reads nothing never answers the close frame: cut off whoever is left after
        // the grace (the HTTP server may report closed before its upgraded sockets are gone)
        setTimeout(() => {
          for (const ws of clients.keys()) ws.terminate()
        }, CLOSE_GRACE_MS).unref()
        wss.close()
        server.close(() => done())
        server.closeAllConnections()
      })
      return closing
    }
  }
}
