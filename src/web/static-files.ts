/**
 * Serves a built renderer folder (out/renderer) over HTTP: GET/HEAD only, no directory listings,
 * no path escaping the folder, `index.html` for `/`, a content type per extension, and the
 * renderer's Content-Security-Policy plus no-sniff/no-frame headers on every response.
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, resolve, sep } from 'node:path'
import { rendererCsp } from '../shared/csp'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8'
}

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

/**
 * Answer one HTTP request from `rootDir`.
 * @param rootDir absolute folder of the built renderer
 * @param headers headers added to every response (see securityHeaders)
 * Responds 405 for methods other than GET/HEAD, 404 for anything missing or outside rootDir.
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
    return send(400, 'bad request')
  }
  if (pathname.includes('\0')) return send(400, 'bad request')
  const root = resolve(rootDir)
  const file = resolve(join(root, pathname === '/' ? 'index.html' : pathname))
  if (file !== root && !file.startsWith(root + sep)) return send(404, 'not found')
  try {
    const info = await stat(file)
    if (!info.isFile()) return send(404, 'not found')
    res.writeHead(200, {
      ...headers,
      'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': String(info.size)
    })
    if (req.method === 'HEAD') return void res.end()
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res)
  } catch {
    send(404, 'not found')
  }
}
