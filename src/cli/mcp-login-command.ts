/**
 * `cortex mcp login NAME` / `cortex mcp logout NAME`: the OAuth login of a remote MCP server
 * (extensions/mcp/oauth-login.ts). The authorization URL is printed, and opened in the browser when
 * a desktop is there (never a non-http(s) URL); Ctrl-C ends the wait for the redirect at once.
 */
import { spawn } from 'node:child_process'
import { toCortexError } from '../shared/errors'
import { mcpOAuthLogin, mcpOAuthLogout, remoteServerFor } from '../main/session'
import type { McpIo } from './mcp-command'
import { dataDir, repoPath } from './paths'
import { terminalSafe } from './terminal-safe'

/** Env var: set to 1 to never open a browser (the URL is printed either way). */
export const NO_BROWSER_ENV = 'CORTEX_NO_BROWSER'

const stdio = (): McpIo => ({ out: process.stdout, err: process.stderr })

/** Open `url` in the desktop's browser when there is one; false when none was tried. Never throws. */
export function openInBrowser(url: URL, env: NodeJS.ProcessEnv = process.env): boolean {
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || env[NO_BROWSER_ENV] === '1') return false
  const argv =
    process.platform === 'darwin' ? ['open', url.href]
    : process.platform === 'win32' ? ['rundll32', 'url.dll,FileProtocolHandler', url.href]
    : env.DISPLAY || env.WAYLAND_DISPLAY ? ['xdg-open', url.href]
    : undefined
  if (!argv) return false
  try {
    const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: 'ignore' })
    child.on('error', () => undefined) // no opener installed: the printed URL remains
    child.unref()
    return true
  } catch {
    return false
  }
}

/** `cortex mcp login NAME [--repo DIR] [--timeout S]`: 0 once tokens are stored; 1 with why; 130 on Ctrl-C. */
export async function mcpLoginCommand(name: string, opts: { repo?: string; timeout?: number }, io: McpIo = stdio()): Promise<number> {
  const stop = new AbortController()
  const onSigint = (): void => stop.abort(new DOMException('stopped', 'AbortError'))
  process.once('SIGINT', onSigint)
  try {
    const home = dataDir()
    const config = remoteServerFor(home, repoPath(opts.repo), name)
    const r = await mcpOAuthLogin({
      name,
      url: config.url,
      home,
      signal: stop.signal,
      ...(opts.timeout !== undefined && { deadlineMs: opts.timeout * 1000 }),
      open(url) {
        const opened = openInBrowser(url)
        io.out.write(terminalSafe(`${opened ? 'Opened your browser to log in to' : 'Open this address in a browser to log in to'} "${name}":`) + '\n')
        io.out.write(terminalSafe(url.href) + '\n')
        io.out.write('waiting for the browser (Ctrl-C to stop)…\n')
      }
    })
    io.out.write(terminalSafe(`logged in to "${name}"${r.scope ? ` (scope: ${r.scope})` : ''}; the tokens are kept in ${home}/mcp-oauth.json`) + '\n')
    return 0
  } catch (err) {
    if (stop.signal.aborted) {
      io.err.write('stopped: not logged in\n')
      return 130
    }
    io.err.write(`error: ${terminalSafe(toCortexError(err).message)}\n`)
    return 1
  } finally {
    process.off('SIGINT', onSigint)
  }
}

/** `cortex mcp logout NAME [--repo DIR]`: forget the server's stored client and tokens; 0, or 1 with why. */
export function mcpLogoutCommand(name: string, opts: { repo?: string }, io: McpIo = stdio()): number {
  try {
    const config = remoteServerFor(dataDir(), repoPath(opts.repo), name)
    const had = mcpOAuthLogout(dataDir(), config.url)
    io.out.write(terminalSafe(had ? `logged out of "${name}": its tokens and client registration are forgotten` : `"${name}" had no stored login`) + '\n')
    return 0
  } catch (err) {
    io.err.write(`error: ${terminalSafe(toCortexError(err).message)}\n`)
    return 1
  }
}
