/**
 * The session service a CLI command runs on (`cortex run`, the interactive `cortex`): the data
 * folder of CORTEX_HOME, no warm pool (one session per process), and the model named by the
 * command line — for a resumed session, the provider, model and base URL it was last run with
 * (never a key), each overridden by a flag given now.
 */
import { createCortexService, resumeModelFlags, type ModelFlags, type SessionService } from '../main/session'
import type { Logger } from '../shared/logger-types'
import { dataDir } from './paths'

/** The model flags given on the command line, absent ones left out. */
export function modelFlagsOf(opts: ModelFlags): ModelFlags {
  return {
    ...(opts.provider ? { provider: opts.provider } : {}),
    ...(opts.model ? { model: opts.model } : {}),
    ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {})
  }
}

/**
 * Create the CLI's session service.
 * @param opts the command's model flags, and `resume` (a session id) when it continues one
 * @throws CortexError from createCortexService (e.g. `invalid_input` for a bad model setting)
 */
export function createCliService(opts: ModelFlags & { resume?: string }, logger: Logger): Promise<SessionService> {
  return createCortexService({
    dataDir: dataDir(),
    modelFlags: opts.resume ? resumeModelFlags(dataDir(), opts.resume, modelFlagsOf(opts)) : modelFlagsOf(opts),
    warmPool: 0,
    logger
  })
}
