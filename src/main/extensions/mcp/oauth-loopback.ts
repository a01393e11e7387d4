/**
 * The loopback redirect listener of an OAuth login (RFC 8252 §7.3): an HTTP server on 127.0.0.1 (a
 * port of the caller's choice when free, else an ephemeral one) that answers `GET /callback` once
 * with the authorization response. The wait has a deadline and ends on Stop; a request whose `state`
 * is not ours is answered 400 and ignored (it cannot be the browser's redirect).
 */
import { createServer, type Server } from 'node:http'
import { CortexError } from '../../../shared/errors'

/** How long a login waits for the browser's redirect by default (ms). */
export const OAUTH_REDIRECT_DEADLINE_MS = 300_000

/** What the authorization server sent back: the code and the `iss` parameter (RFC 9207), if any. */
export interface AuthorizationResponse {
  code: string
  iss: string | undefined
}

/** A listening loopback server. */
export interface LoopbackListener {
  /** `http://127.0.0.1:<port>/callback`. */
  readonly redirectUri: string
  /**
   * Wait for the redirect carrying `state` (one that came before this call counts too).
   * @throws CortexError('invalid_input') when the server answered with an OAuth error, and past
   *   `deadlineMs`; an AbortError when `signal` aborts (Stop)
   */
  wait(signal: AbortSignal, deadlineMs?: number): Promise<AuthorizationResponse>
  /** Stop listening (idempotent). */
  close(): Promise<void>
}

const PAGE = (text: string): string => `<!doctype html><meta charset="utf-8"><title>Cortex Code</title><p>${text}</p>`

/**
 * Listen on 127.0.0.1:`preferredPort` (when given and free) or an ephemeral port for the redirect
 * carrying `state`. @throws the listen error when neither port works
 */
export async function startLoopback(state: string, preferredPort?: number): Promise<LoopbackListener> {
  let answered: ((r: { ok: AuthorizationResponse } | { err: Error }) => void) | undefined
  const answer = new Promise<{ ok: AuthorizationResponse } | { err: Error }>((resolve) => (answered = resolve))
  const deliver = (p: URLSearchParams): boolean => {
    if (p.get('state') !== state || !answered) return false
    const error = p.get('error')
    const code = p.get('code')
    if (error || !code) {
      const why = error ? `${error}${p.get('error_description') ? `: ${p.get('error_description')}` : ''}` : 'no authorization code'
      answered({ err: new CortexError('invalid_input', `the authorization server refused the login (${why})`) })
    } else answered({ ok: { code, iss: p.get('iss') ?? undefined } })
    answered = undefined
    return true
  }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404).end()
      return
    }
    const taken = deliver(url.searchParams)
    res.writeHead(taken ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    res.end(PAGE(taken ? 'Cortex Code received the answer. You can close this tab.' : 'This is not the answer Cortex Code is waiting for.'))
  })
  const port = await listen(server, preferredPort).catch(() => listen(server, 0))
  let closed: Promise<void> | undefined
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    wait(signal, deadlineMs = OAUTH_REDIRECT_DEADLINE_MS) {
      return new Promise<AuthorizationResponse>((resolve, reject) => {
        const finish = (r: { ok: AuthorizationResponse } | { err: Error }): void => {
          clearTimeout(timer)
          signal.removeEventListener('abort', onAbort)
          if ('err' in r) reject(r.err)
          else resolve(r.ok)
        }
        const onAbort = (): void => finish({ err: signal.reason instanceof Error ? signal.reason : new DOMException('stopped', 'AbortError') })
        const timer = setTimeout(() => finish({ err: new CortexError('invalid_input', `no answer from the browser within ${Math.round(deadlineMs / 1000)} s; run the login again`) }), deadlineMs)
        if (signal.aborted) return onAbort()
        signal.addEventListener('abort', onAbort, { once: true })
        void answer.then(finish)
      })
    },
    close() {
      closed ??= new Promise<void>((done) => {
        server.close(() => done())
        server.closeAllConnections()
      })
      return closed
    }
  }
}

function listen(server: Server, port: number | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err)
    server.once('error', onError)
    server.listen(port ?? 0, '127.0.0.1', () => {
      server.removeListener('error', onError)
      resolve((server.address() as { port: number }).port)
    })
  })
}
