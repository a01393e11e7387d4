/**
 * Public surface of the core for adapters (Electron IPC, CLI, web host): the one factory that
 * builds the production session service ({@link createCortexService}), the session service itself
 * (for tests and custom hosts), model settings resolution, the default (Docker) guest provider, the
 * file logger and the guest image build. Adapters import only this module and src/shared.
 */
import { join } from 'node:path'
import { DockerGuestProvider, reapOrphanGuests } from '../guest/docker-guest'
import { WarmGuestPool } from '../guest/warm-pool'
import { spareTtlMs } from '../guest/spare-guests'
import { CortexError } from '../../shared/errors'
import { childLogger, errorFields, NOOP_LOGGER, type Logger } from '../../shared/logger-types'
import type { GuestProvider } from '../guest/guest'
import { resolveModelSettings, type ModelFlags, type ModelSettings } from '../providers'
import { SessionStore, type SessionMeta } from '../store/session-store'
import { createSessionService, type SessionService } from './service'
import { SettingsStore, type SecretStore } from '../store/settings-store'
import { modelSettingsFrom } from './settings-requests'
import { sessionTitle } from './session-title'
import { TrustStore } from '../extensions'
import { environmentResolver } from '../extensions/environment/read-environment'
import { disarmAroundSetup } from './setup-guard'
import { dependencyVolumesSetting } from './guest-entries'
import { checkRepoPolicy } from './repo-policy'

export { createSessionService, type SessionService, type SessionServiceOptions } from './service'
export { resumeModelFlags } from './resume'
export { SettingsStore, fileSecrets, HOST_KEYS_FILE, type SecretStore } from '../store/settings-store'
export { resolveModelSettings, type ModelFlags, type ModelSettings } from '../providers'
export { guestBuildMain } from '../guest/image'
export { removeOwnGuests } from '../guest/docker-guest'
export { addToPackageCache, mcpPackagesDir } from '../extensions/mcp/package-cache'
export { boundedShutdown, SHUTDOWN_CLOSE_MS, SHUTDOWN_REMOVE_MS } from './bounded-shutdown'
export { ApprovalRulesStore } from '../harness/approvals/rules-store'
export { addBashRule } from '../harness/approvals/add-bash-rule'
export { cliLogLevels, createFileLogger, LOG_LEVEL_ENV, type FileLoggerOptions } from '../log/file-logger'
export { checkImage } from '../tools/image-check'
export { repositoryTrust, enableRepositoryTrust, disableRepositoryTrust, type RepositoryTrust } from './trust-requests'
export {
  addUserServer, removeUserServer, enableMcpServer, disableMcpServer, findMcpServer, mcpServersFor, importMcpServers, describeServer, MCP_CONFIG_ENV, flagFileRefusal,
  type McpServerEntry, type RawMcpEntry
} from '../extensions/mcp/config'
export { type ProbeResult } from '../extensions/mcp/config-probe'
export { dependencyVolumesSetting, guestPruneMain, guestSetupMain, probeMcpServerMain } from './guest-entries'
export { mcpOAuthLogin, mcpOAuthLogout, mcpOAuthStatus, remoteServerFor } from '../extensions/mcp/oauth-login'

/** Env var: guests kept warm for the repository opened last (0 disables the pool). */
export const WARM_POOL_ENV = 'CORTEX_WARM_POOL'
/** Env var: a user-named guest image instead of the built-in one (musl refused; Cortex's Node added in a derived image; checked at attach for bash, rg, git). */
export const GUEST_IMAGE_ENV = 'CORTEX_GUEST_IMAGE'

/**
 * The production guest provider: Docker guests through the daemon named by DOCKER_HOST (default
 * the local socket), the guest image built on first use when missing, behind a warm pool of
 * `warmPool` guests (default: `CORTEX_WARM_POOL`, else 1; 0 disables it), from the image named by
 * `CORTEX_GUEST_IMAGE` when set, with one checkpoint guest per repository mounting its store from
 * `checkpointsDir` (unset: no checkpoints; session guests never mount it); the provider, pool and agent
 * connections log to `logger`. With `warmGuest` (`cortex run` and the TUI, ADR 0040) a session guest
 * is a claimed spare when one matches, and `close()` leaves a fresh spare for the last session's
 * repository and policy. Every guest start applies the folder policy (repo-policy.ts, root-owned
 * folders allowed: that choice is the session's) for the data folder `policyDataDir` (default
 * `dataDir`; neither: not checked). Call `close()` at exit: it removes the pool's guests and the checkpoint guests.
 * @throws CortexError('invalid_input') when CORTEX_WARM_POOL is not a whole number from 0 to 8, or CORTEX_WARM_GUEST_TTL_MS is bad
 */
export function createDefaultGuestProvider(opts: { warmPool?: number; logger?: Logger; checkpointsDir?: string; image?: string; mcpPackagesDir?: string; warmGuest?: boolean; dataDir?: string; policyDataDir?: string } = {}): GuestProvider & { close(): Promise<void> } {
  const raw = process.env[WARM_POOL_ENV]
  const size = opts.warmPool ?? (raw === undefined || raw === '' ? 1 : Number(raw))
  if (!Number.isInteger(size) || size < 0 || size > 8) {
    throw new CortexError('invalid_input', `${WARM_POOL_ENV}="${raw}" must be a whole number from 0 to 8`)
  }
  const image = opts.image?.trim() || process.env[GUEST_IMAGE_ENV]?.trim() || undefined
  const logger = opts.logger ?? NOOP_LOGGER
  // the spare's lifetime is checked now: a bad CORTEX_WARM_GUEST_TTL_MS is refused before anything starts
  const spare = opts.warmGuest ? { warmGuest: true, spareTtlMs: spareTtlMs() } : {}
  // every guest start checks the folder policy itself (root ownership stays the session's check)
  const policyDir = opts.policyDataDir ?? opts.dataDir
  const docker = new DockerGuestProvider({
    ...(policyDir ? { checkRepo: (repo: string) => void checkRepoPolicy(repo, { dataDir: policyDir, allowRootRepo: true }) } : {}),
    ...(image ? { image } : {}), ...spare, checkpointsDir: opts.checkpointsDir, mcpPackagesDir: opts.mcpPackagesDir, logger: childLogger(logger, { component: 'guest' }),
    // a repository's devcontainer.json, once the user trusts it (ADR 0038)
    ...(opts.dataDir ? { environment: environmentResolver(new TrustStore(opts.dataDir)), aroundSetup: disarmAroundSetup(logger), dependencyVolumes: dependencyVolumesSetting(opts.dataDir) } : {})
  })
  return new WarmGuestPool(docker, { size, logger: childLogger(logger, { component: 'warm-pool' }) })
}

/** Options of {@link createCortexService}. */
export interface CortexServiceOptions {
  /** Data folder: CORTEX_HOME (CLI, web host) or the app's userData (Electron). */
  dataDir: string
  /** Model flags of the command line (override the environment); the app passes none. */
  modelFlags?: ModelFlags
  /** Environment read for model settings (default process.env). */
  env?: NodeJS.ProcessEnv
  /** Warm guests (default CORTEX_WARM_POOL, else 1); `cortex run` uses 0. */
  warmPool?: number
  /** Spare guests across processes (ADR 0040): only `cortex run` and the TUI pass it (cli-service.ts); default off. */
  warmGuest?: boolean
  /** Where the service, sessions, turns, guests, pool and agent connections log (default nowhere). */
  logger?: Logger
  /** Where API keys are kept (the desktop app: safeStorage); default the environment. */
  secrets?: SecretStore
  /**
   * Start even when no model connection can be resolved (the desktop app: a user started from the
   * dock has no environment): sessions are refused with the `provider_config` error until
   * saveSettings makes the settings complete. Default false (the CLI fails fast).
   */
  allowUnconfigured?: boolean
  /** Resume sessions only to review or undo (`cortex changes`, `cortex rewind`): see SessionServiceOptions.reviewOnly. */
  reviewOnly?: boolean
  /** Opens an http(s) URL in the user's browser (the desktop app: shell.openExternal; the MCP login). */
  openExternal?(url: string): Promise<void>
}

/**
 * The one construction of the production session service, shared by the desktop app,
 * `cortex run` and `cortex serve`: resolves the model settings, builds the Docker guest provider
 * behind its warm pool, starts a background sweep of orphan guests (those of Cortex processes that
 * are gone; its outcome is logged), and creates the session service, all logging to `logger`.
 * @throws CortexError `provider_config` for missing model settings, `invalid_input` for a bad CORTEX_WARM_POOL
 */
export async function createCortexService(opts: CortexServiceOptions): Promise<SessionService> {
  const logger = opts.logger ?? NOOP_LOGGER
  const env = opts.env ?? process.env
  // the settings file (when there is one and no command-line flag names a model connection) decides
  const file = new SettingsStore(opts.dataDir)
  const flags = opts.modelFlags ?? {}
  const saved = file.exists() ? file.read() : undefined
  // one bad value stands in as its default, the others still apply; the file keeps what was written
  for (const problem of saved ? file.problems() : []) logger.warn(problem)
  let modelSettings = resolveModelSettingsOrNull(flags, env)
  if (saved && !flags.provider && !flags.model && !flags.baseUrl) {
    try {
      modelSettings = modelSettingsFrom(saved, opts.secrets, env)
    } catch (err) {
      logger.warn('saved model settings incomplete; using the environment', errorFields(err))
    }
  }
  let unconfigured: CortexError | null = null
  if (!modelSettings && opts.allowUnconfigured) {
    try {
      resolveModelSettings(flags, env)
    } catch (err) {
      unconfigured = err instanceof CortexError ? err : new CortexError('provider_config', String(err))
    }
    // never used for a request: sessions are refused until the settings are complete
    modelSettings = { provider: 'openai-compatible', modelId: 'unconfigured', baseUrl: 'http://127.0.0.1:9/unconfigured' }
  }
  modelSettings ??= resolveModelSettings(flags, env) // throws provider_config naming what is missing
  const guests = createDefaultGuestProvider({
    warmPool: opts.warmPool ?? saved?.warmPool,
    warmGuest: opts.warmGuest ?? false,
    image: saved?.guestImage,
    dataDir: opts.dataDir,
    logger,
    checkpointsDir: checkpointsDirOf(opts.dataDir),
    mcpPackagesDir: join(opts.dataDir, 'mcp', 'packages')
  })
  const reaperLog = childLogger(logger, { component: 'reaper' })
  reapOrphanGuests([], { othersOnly: true, logger: reaperLog }).then(
    (removed) => reaperLog.debug('orphan sweep done', { removed: removed.length }),
    (err: unknown) => reaperLog.info('orphan sweep skipped', errorFields(err))
  )
  logger.info('session service starting', { dataDir: opts.dataDir, provider: modelSettings.provider, model: modelSettings.modelId })
  const service = await createSessionService({
    dataDir: opts.dataDir, modelSettings, guests, logger, secrets: opts.secrets, reviewOnly: opts.reviewOnly,
    ...(opts.openExternal && { openExternal: opts.openExternal }),
    ...(saved ? { streamIdleTimeoutMs: saved.streamIdleTimeoutS * 1000, mcpSchemaBudget: saved.mcpSchemaBudget } : {}),
    // the environment (--context-window, CORTEX_COMPACT_THRESHOLD) wins over the saved settings (harness/compaction/settings.ts)
    ...(saved ? { compaction: { ...(saved.contextWindow > 0 ? { window: saved.contextWindow } : {}), threshold: saved.compactThresholdPct / 100 } } : {})
  })
  return unconfigured ? refuseSessionsUntilConfigured(service, unconfigured) : service
}

/**
 * `service` with openSession and resumeSession refused with `why` until a saveSettings call leaves
 * the settings complete (its answer carries no `inForceError`); everything else passes through.
 */
export function refuseSessionsUntilConfigured(service: SessionService, why: CortexError): SessionService {
  let configured = false
  const refuse = (): never => {
    throw new CortexError('provider_config', `${why.message} — or open Settings and choose a provider, model and key`)
  }
  return {
    ...service,
    async openSession(input) {
      if (!configured) refuse()
      return service.openSession(input)
    },
    async resumeSession(input) {
      if (!configured) refuse()
      return service.resumeSession(input)
    },
    async saveSettings(input) {
      const view = await service.saveSettings(input)
      if (!view.inForceError) configured = true
      return view
    }
  }
}

function resolveModelSettingsOrNull(flags: ModelFlags, env: NodeJS.ProcessEnv): ModelSettings | null {
  try {
    return resolveModelSettings(flags, env)
  } catch {
    return null
  }
}

/** Where the checkpoint stores of `dataDir` live (one folder per repository; docs/adr/0010-checkpoints.md). */
export function checkpointsDirOf(dataDir: string): string {
  return join(dataDir, 'checkpoints')
}

/**
 * Metadata of every stored session under `dataDir`, oldest first, with its `title` (the name the
 * user gave it, else its first message; '' when none), as the app's sidebar shows it.
 */
export function listStoredSessions(dataDir: string): Array<SessionMeta & { title: string }> {
  const store = new SessionStore(dataDir)
  return store
    .list()
    .map((id) => {
      const meta = store.readMeta(id)
      return meta ? { ...meta, title: sessionTitle(store.dir(id)) } : null
    })
    .filter((m): m is SessionMeta & { title: string } => m !== null)
    .sort((a, b) => a.createdAt - b.createdAt)
}
