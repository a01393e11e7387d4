/**
 * Serves a built renderer folder (out/renderer) over HTTP: GET/HEAD only, no directory listings,
 * no path escaping the folder — by `..` or by a symlink: the file's real path must lie inside the
 * folder's real path — `index.html` for `/`, a content type per extension, and the renderer's
 * Content-Security-Policy plus no-sniff/no-frame headers on every response.
 */
import { constants } from 'node:fs'
import { pipeline } from 'node:stream'
import { open, realpath } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, resolve, sep } from 'node:path'
import { rendererCsp } from '../shared/csp'
import { RENDERER_CONTENT_TYPES as TYPES } from '../shared/content-types'

/**
 * Security headers of every web host response.
 * @param wsOrigin the WebSocket origin the page may connect to, e.g. `ws://127.0.0.1:4321`
 */
export function securityHeaders(wsOrigin: string): Record<string, string> {
  const csp = rendererCsp(wsOrigin)
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store'
  }
}

/** Whether `path` is `root` or inside it (both real, absolute paths). */
function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)
}

/**
 * Answer one HTTP request from `rootDir`.
 * @param rootDir absolute folder of the built renderer
 * @param headers headers added to every response (see securityHeaders)
 * Responds 405 for methods other than GET/HEAD, 404 for anything missing or outside rootDir,
 * including a symlink inside it that points outside (its target is resolved and checked).
 */
export async function serveStatic(
  rootDir: string,
  headers: Record<string, string>,
  req: IncomingMessage,
  res: ServerResponse
): Promise<void> {
  const send = (status: number, body: string): void => {
    res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' })
    res.end(body)
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed')
  let pathname: string
  try {
    pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname)
  } catch {
    return send(400, 'bad request') // a malformed URL: the client is told
  }
  if (pathname.includes('\0')) return send(400, 'bad request')
  const root = resolve(rootDir)
  const file = resolve(join(root, pathname === '/' ? 'index.html' : pathname))
  if (!within(file, root)) return send(404, 'not found')
  let handle: Awaited<ReturnType<typeof open>> | undefined
  try {
    // follow links to the real file, then insist it is inside the real folder; open it without
    // following a link swapped in meanwhile (O_NOFOLLOW on the last component)
    const real = await realpath(file)
    if (!within(real, await realpath(root))) return send(404, 'not found')
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    const info = await handle.stat()
    if (!info.isFile()) return send(404, 'not found')
    res.writeHead(200, {
      ...headers,
      'Content-Type': TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': String(info.size)
    })
    if (req.method === 'HEAD') return void res.end()
    // the handle's own stream closes the handle when it ends, fails or is destroyed; pipeline destroys
    // it when the response fails or the client goes away (a raw-fd stream with autoClose off never
    // emitted 'close' after 'end', so the handle was left for the garbage collector)
    const stream = handle.createReadStream()
    handle = undefined
    pipeline(stream, res, () => undefined) // an aborted download: nothing to report to anyone
  } catch {
    send(404, 'not found') // missing, unreadable or outside the folder: the client is told, nothing more to say
  } finally {
    await handle?.close().catch(() => undefined) // a read-only handle: a failed close loses nothing
  }
}
