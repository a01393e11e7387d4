/**
 * `cortex serve`: run the session service and serve the built renderer plus the contract over a
 * WebSocket on 127.0.0.1 with a random token. Prints the URL to open (token included) and runs
 * until Ctrl-C, then closes every session (removing their guests).
 */
import { toCortexError } from '../shared/errors'
import { sweepOrphanGuests, createDefaultGuestProvider, createSessionService, resolveModelSettings, type ModelFlags } from '../main/session'
import { startWebHost } from '../web/web-host'
import { dataDir, rendererDir } from './paths'

/** Options of `cortex serve`. `port` 0 picks a free port. */
export interface ServeOptions extends ModelFlags {
  port: number
}

/** Serve until SIGINT/SIGTERM; resolves with the exit status (0 after a clean stop, 1 on error). */
export async function serveCommand(opts: ServeOptions): Promise<number> {
  try {
    sweepOrphanGuests()
    const modelSettings = resolveModelSettings({ provider: opts.provider, model: opts.model, baseUrl: opts.baseUrl }, process.env)
    const service = await createSessionService({ dataDir: dataDir(), modelSettings, guests: createDefaultGuestProvider() })
    const host = await startWebHost({ api: service, port: opts.port, rendererDir: rendererDir() })
    process.stdout.write(`Cortex Code is serving at ${host.url}\n`)
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    await host.close()
    await service.shutdown()
    return 0
  } catch (err) {
    process.stderr.write(`error: ${toCortexError(err).message}\n`)
    return 1
  }
}
