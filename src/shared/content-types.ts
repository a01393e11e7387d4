/**
 * Content types of the files in the built renderer, by extension: one table for the web host's
 * static server (src/web/static-files.ts) and the desktop app's `app://` protocol
 * (src/main/app/app-protocol.ts).
 */

/** `Content-Type` by lower-case file extension (with its dot); any other extension is served as application/octet-stream. */
export const RENDERER_CONTENT_TYPES: Readonly<Record<string, string>> = {
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
