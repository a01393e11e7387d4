/**
 * The `app://` protocol that serves the built renderer to the window instead of `file://`: a
 * standard, secure origin (`app://cortex`) so the page has a real origin and same-origin rules, and
 * the Content-Security-Policy arrives as a response header. The handler is a plain function of a
 * fetch `Request` (no Electron import) so tests call it directly; `registerAppScheme` and
 * `handleAppProtocol` bind it to Electron.
 */
import { readFile, realpath } from 'node:fs/promises'
import { extname, join, resolve, sep } from 'node:path'
import type { Protocol } from 'electron'
import { rendererCsp } from '../../shared/csp'
import { RENDERER_CONTENT_TYPES as TYPES } from '../../shared/content-types'

/** The scheme the renderer is served under. */
export const APP_SCHEME = 'app'
/** The host of every renderer URL: `app://cortex/index.html`. */
export const APP_HOST = 'cortex'
/** The URL the window loads. */
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`

/** Headers on every `app://` response, errors included. */
export function appProtocolHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': rendererCsp(),
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Referrer-Policy': 'no-referrer'
  }
}

const refuse = (status: number, text: string): Response =>
  new Response(text, { status, headers: { ...appProtocolHeaders(), 'Content-Type': 'text/plain; charset=utf-8' } })

/**
 * A handler serving files of `rootDir` (the built renderer folder) for `app://cortex/<path>`.
 * GET/HEAD only; `/` is index.html; the file's real path (symlinks resolved) must lie inside the
 * root's real path, so `..` (raw or percent-encoded) and symlinks out are refused with 403; another
 * host or scheme is 404. Never throws: I/O failures answer 404.
 */
export function createAppProtocolHandler(rootDir: string): (request: Request) => Promise<Response> {
  const root = resolve(rootDir)
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(405, 'method not allowed')
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return refuse(400, 'bad url')
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return refuse(404, 'not found')
    // the raw path: a URL parser folds `/../` away, so check the encoded form for escapes as well
    const rawPath = request.url.slice(request.url.indexOf(APP_HOST) + APP_HOST.length).split(/[?#]/)[0] ?? '/'
    let pathname: string
    try {
      pathname = decodeURIComponent(url.pathname)
      if (decodeURIComponent(rawPath).split(/[\\/]/).includes('..')) return refuse(403, 'forbidden')
    } catch {
      return refuse(400, 'bad path')
    }
    if (pathname.includes('\0')) return refuse(400, 'bad path')
    const relative = pathname === '/' ? 'index.html' : pathname.replace(/^\/+/, '')
    const target = resolve(join(root, relative))
    try {
      const realRoot = await realpath(root)
      const real = await realpath(target)
      if (real !== realRoot && !real.startsWith(realRoot + sep)) return refuse(403, 'forbidden')
      const body = await readFile(real)
      const headers = { ...appProtocolHeaders(), 'Content-Type': TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream' }
      return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers })
    } catch {
      return refuse(404, 'not found')
    }
  }
}

/**
 * Declare `app://` standard, secure, fetch-capable and allowed to register service workers' peers
 * (code cache). Must run before the app's `ready` event (Electron's rule).
 */
export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } }
  ])
}

/** Serve `rendererDir` under `app://cortex/` (after `ready`). */
export function handleAppProtocol(protocol: Pick<Protocol, 'handle'>, rendererDir: string): void {
  protocol.handle(APP_SCHEME, createAppProtocolHandler(rendererDir))
}
