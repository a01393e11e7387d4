/**
 * `cortex serve`: run the session service and serve the built renderer plus the contract over a
 * WebSocket on 127.0.0.1 with a random token. Prints the URL to open (token included) and runs
 * until Ctrl-C, then closes every session (removing their guests) and exits within about 5 s
 * whatever the clients and guests do (a handle still open past that is not waited for). Logs go to
 * `<CORTEX_HOME>/cortex.log`, and to stderr with --verbose or CORTEX_LOG=<level>.
 */
import { toCortexError } from '../shared/errors'
import { errorFields } from '../shared/logger-types'
import { boundedShutdown, createCortexService, fileSecrets, type ModelFlags } from '../main/session'
import { startWebHost } from '../web/web-host'
import { dataDir, rendererDir } from './paths'
import { createCliLogger } from './run-command'

/** How long (ms) the process may stay alive after the bounded shutdown before it exits anyway. */
export const SERVE_EXIT_GRACE_MS = 500

/** Options of `cortex serve`. `port` 0 picks a free port. */
export interface ServeOptions extends ModelFlags {
  port: number
  /** Log debug records to stderr too. */
  verbose?: boolean
}

/** Serve until SIGINT/SIGTERM; resolves with the exit status (0 after a clean stop, 1 on error). */
export async function serveCommand(opts: ServeOptions): Promise<number> {
  const logger = createCliLogger(opts.verbose)
  try {
    const service = await createCortexService({
      dataDir: dataDir(),
      modelFlags: { provider: opts.provider, model: opts.model, baseUrl: opts.baseUrl },
      // keys entered in the browser's Settings: a 0600 file in the data folder (ADR 0028)
      secrets: fileSecrets(dataDir()),
      logger
    })
    const host = await startWebHost({ api: service, port: opts.port, rendererDir: rendererDir(), logger })
    logger.info('web host listening', { port: host.port })
    process.stdout.write(`Cortex Code is serving at ${host.url}\n`)
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    // within 5 s whatever state the guests are in: close sessions (each bounded), then force-remove
    // whatever guest of this process is left; a second signal quits at once (the guests then stop
    // by themselves when this process's connections close)
    const quit = (): never => process.exit(130)
    process.once('SIGINT', quit)
    process.once('SIGTERM', quit)
    await boundedShutdown(() => Promise.all([host.close(), service.shutdown()]), { logger })
    // whatever is still open now (a client socket, a Docker exec stream of a removed guest) would
    // keep the process alive: once the event loop had its grace, exit anyway (unref: not waited for)
    setTimeout(() => {
      logger.warn('handles still open after shutdown; exiting anyway', { graceMs: SERVE_EXIT_GRACE_MS })
      process.exit(process.exitCode ?? 0)
    }, SERVE_EXIT_GRACE_MS).unref()
    return 0
  } catch (err) {
    logger.error('cortex serve failed', errorFields(err))
    process.stderr.write(`error: ${toCortexError(err).message}\n`)
    return 1
  }
}
