/**
 * The host watchdog: a small detached Node process, started with this process's first guest, that
 * holds a pipe from this process and, when the pipe closes (this process exited, crashed or was
 * killed with SIGKILL), force-removes (with its unnamed volumes: an environment guest's HOME) every guest container labelled with this process's owner tag
 * through the Docker API, and every container id the host named on the pipe (`+<id>` lines: the
 * spare guests it claimed, which carry no owner label, ADR 0040). It complements the guest's own exit on host EOF (ADR 0007), which stops
 * the container but cannot remove it, and cannot run while the guest agent is SIGSTOPped. Built-ins
 * only, one instance per process; never started for a TLS Docker endpoint (the guest's own exit
 * and the next start-up sweep then remain).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { Socket } from 'node:net'
import { LABEL_MANAGED } from './container-spec'
import { LABEL_OWNER, ownerTag } from './owner'

/** Env var that turns the watchdog off (`0`), e.g. to test the guest's own exit on host EOF alone. */
export const HOST_WATCHDOG_ENV = 'CORTEX_HOST_WATCHDOG'

/** How long the watchdog tries to remove the guests after its host is gone (ms). */
export const WATCHDOG_REMOVE_DEADLINE_MS = 15_000

/** Where the Docker API listens: a unix socket, or plain HTTP host and port. */
export type DockerEndpoint = { socketPath: string } | { host: string; port: number }

// Runs as `node -e WATCHDOG_SCRIPT <endpoint json> <label filter json>`; exits once done.
const WATCHDOG_SCRIPT = `
const http = require('http')
const endpoint = JSON.parse(process.argv[1])
const filters = process.argv[2]
const call = (method, path) => new Promise((resolve, reject) => {
  const req = http.request({ ...endpoint, method, path, timeout: 5000 }, (res) => {
    let body = ''
    res.setEncoding('utf8').on('data', (d) => (body += d)).on('end', () => resolve(body))
  })
  req.on('timeout', () => req.destroy(new Error('timeout'))).on('error', reject).end()
})
let started = false
let pending = ''
const named = new Set()
const run = async () => {
  if (started) return
  started = true
  setTimeout(() => process.exit(0), ${WATCHDOG_REMOVE_DEADLINE_MS}).unref()
  const remove = (id) => call('DELETE', '/containers/' + id + '?force=1&v=1').catch(() => undefined)
  try {
    const list = JSON.parse(await call('GET', '/containers/json?all=1&filters=' + encodeURIComponent(filters)))
    await Promise.all([...list.map((c) => remove(c.Id)), ...[...named].map(remove)])
  } catch {
    await Promise.all([...named].map(remove))
  }
  process.exit(0)
}
const onData = (d) => {
  pending += d
  const lines = pending.split('\\n')
  pending = lines.pop()
  for (const l of lines) if (/^\\+[0-9a-f]{12,64}$/.test(l)) named.add(l.slice(1))
}
process.stdin.setEncoding('utf8')
process.stdin.on('data', onData).on('end', run).on('error', run).on('close', run)
`

let watchdog: ChildProcess | undefined

/**
 * Start this process's watchdog once (later calls do nothing). `endpoint` is where the Docker API
 * listens (see {@link dockerEndpointOf}); undefined skips the watchdog. The child is detached and
 * unreferenced: it never keeps this process alive, and no Ctrl-C sent to the terminal's process
 * group reaches it. Disabled when {@link HOST_WATCHDOG_ENV} is `0`. Returns the child's pid, if started.
 */
export function ensureHostWatchdog(endpoint: DockerEndpoint | undefined, log: (msg: string) => void = () => undefined): number | undefined {
  if (watchdog) return watchdog.pid
  if (!endpoint || process.env[HOST_WATCHDOG_ENV] === '0') return undefined
  const filters = JSON.stringify({ label: [`${LABEL_MANAGED}=1`, `${LABEL_OWNER}=${ownerTag()}`] })
  try {
    watchdog = spawn(process.execPath, ['-e', WATCHDOG_SCRIPT, JSON.stringify(endpoint), filters], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      // Electron's binary runs as plain Node with this; plain Node ignores it
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }
    })
  } catch (err) {
    log(`host watchdog not started: ${(err as Error).message}`)
    return undefined
  }
  watchdog.on('error', (err) => log(`host watchdog failed: ${err.message}`))
  watchdog.stdin?.on('error', () => undefined)
  watchdog.unref()
  ;(watchdog.stdin as Socket | null)?.unref()
  return watchdog.pid
}

/**
 * Have the watchdog also remove container `id` when this process ends (a claimed spare guest, which
 * carries no owner label). No-op without a watchdog.
 */
export function watchdogAlsoRemove(id: string): void {
  if (!/^[0-9a-f]{12,64}$/.test(id)) return
  watchdog?.stdin?.write(`+${id}\n`)
}

/**
 * The plain (non-TLS) Docker endpoint of a dockerode modem (`docker.modem`): its unix socket (a
 * default socket path the modem resolves lazily is resolved here), or an `http` host and port;
 * undefined for TLS or anything else.
 */
export async function dockerEndpointOf(modem: Record<string, unknown>): Promise<DockerEndpoint | undefined> {
  let socketPath = modem.socketPath
  if (typeof socketPath === 'function') socketPath = await (socketPath as () => Promise<unknown>)()
  if (typeof socketPath === 'string' && socketPath) return { socketPath }
  if (typeof modem.host === 'string' && modem.protocol === 'http') return { host: modem.host, port: Number(modem.port ?? 2375) }
  return undefined
}
