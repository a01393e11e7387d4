/**
 * The renderer's Content-Security-Policy, one source for the Electron window and the web host
 * (src/renderer/index.html carries the same policy as a <meta>): scripts, workers and fonts from
 * the app only; inline styles allowed (Monaco, mermaid SVG); no plugins, framing or forms.
 */

/**
 * Build the policy string.
 * @param connectSrc extra `connect-src` sources, e.g. the web host's `ws://127.0.0.1:4321`
 */
export function rendererCsp(...connectSrc: string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    ["connect-src 'self'", ...connectSrc].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join('; ')
}
