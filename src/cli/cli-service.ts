/**
 * The session service a CLI command runs on (`cortex run`, the interactive `cortex`): the data
 * folder of CORTEX_HOME, no warm pool (one session per process) but the warm guest across processes
 * when enabled (ADR 0040), and the model named by the
 * command line — for a resumed session, the provider, model and base URL it was last run with
 * (never a key), each overridden by a flag given now.
 */
import { createCortexService, resumeModelFlags, SettingsStore, type ModelFlags, type SessionService } from '../main/session'
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

/** Env var: `1` turns the warm guest on for `cortex run` and the TUI (as `--warm` or `warmGuest` in settings.json), `0` off. */
export const WARM_GUEST_ENV = 'CORTEX_WARM_GUEST'

/**
 * Whether the warm guest (ADR 0040) is on: `--warm`, else CORTEX_WARM_GUEST (`1`/`0`), else
 * undefined (the settings file decides: {@link warmGuestSetting}).
 */
export function warmGuestOf(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean | undefined {
  if (flag) return true
  const raw = env[WARM_GUEST_ENV]
  return raw === '1' ? true : raw === '0' ? false : undefined
}

/** `warmGuest` of `<dataDir>/settings.json`; false when there is no file or it cannot be read (the service reports a bad file itself). */
export function warmGuestSetting(dir: string): boolean {
  try {
    const file = new SettingsStore(dir)
    return file.exists() && file.read().warmGuest
  } catch {
    return false
  }
}

/** What is wrong with `<dataDir>/settings.json`, one line each (see SettingsStore.problems); none without a file. */
export function settingsProblems(dir: string = dataDir()): string[] {
  try {
    return new SettingsStore(dir).problems()
  } catch {
    return [] // the data folder cannot be made: the service says so itself
  }
}

/**
 * Create the CLI's session service.
 * @param opts the command's model flags, `resume` (a session id) when it continues one, and `warm` (the --warm flag)
 * @throws CortexError from createCortexService (e.g. `invalid_input` for a bad model setting)
 */
export function createCliService(opts: ModelFlags & { resume?: string; warm?: boolean }, logger: Logger): Promise<SessionService> {
  return createCortexService({
    dataDir: dataDir(),
    modelFlags: opts.resume ? resumeModelFlags(dataDir(), opts.resume, modelFlagsOf(opts)) : modelFlagsOf(opts),
    warmPool: 0,
    warmGuest: warmGuestOf(opts.warm) ?? warmGuestSetting(dataDir()),
    logger
  })
}
