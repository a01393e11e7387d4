/**
 * The session API: a queue pair over live sessions. Callers submit operations and subscribe to
 * events; the Electron IPC, the CLI and the web host are thin adapters over this one service.
 * Its options and its API type are in service-options.ts.
 */
import { randomUUID } from 'node:crypto'
import { parseRequest as parse, type SessionInfo } from '../../shared/contract'
import { CortexError } from '../../shared/errors'
import type { EventEnvelope, SessionEvent } from '../../shared/events'
import { childLogger, errorFields, NOOP_LOGGER } from '../../shared/logger-types'
import { classifyProviderError, createLanguageModel } from '../providers'
import { SessionStore } from '../store/session-store'
import { SessionImages } from '../store/image-store'
import { checkImage } from '../tools/image-check'
import { join } from 'node:path'
import { modelRecordOf, resumeEvents } from './resume'
import { modelRequests, resumedModelSettings } from './model-requests'
import { TOOL_CATALOG } from '../tools/catalog'
import { checkRepoPolicy } from './repo-policy'
import { loadStoredSession, metaRecorder } from './session-meta'
import { checkSessionCap, maxSessionsFromEnv, resolveRepo } from './service-inputs'
import { Session, type SessionDeps } from './session'
import { checkpointRequests } from './checkpoint-requests'
import { deskRequests } from './desk-requests'
import { settingsRequests } from './settings-requests'
import { mcpRequests } from './mcp-requests'
import { shellRequests } from './shell-requests'
import { STREAM_IDLE_TIMEOUT_ENV, streamIdleTimeoutMs } from '../harness/model-request'
import { compactionFor } from '../harness/compaction/settings'
import { ApprovalRulesStore } from '../harness/approvals/rules-store'
import type { SessionService, SessionServiceOptions } from './service-options'

export type { SessionService, SessionServiceOptions } from './service-options'

/**
 * Create the session service. Every request's input is validated here, once (parseRequest), for
 * every adapter. A `set_mode` switch is written to the session's meta.json, so a resume starts in
 * the mode last set.
 * @throws CortexError(`invalid_input`) at creation for a bad CORTEX_STREAM_IDLE_TIMEOUT or compaction setting; request methods reject with CortexError (`repo_invalid`,
 *   `session_not_found`, `busy`, `invalid_input`)
 */
export async function createSessionService(options: SessionServiceOptions): Promise<SessionService> {
  // the AI SDK reports warnings through process.emitWarning unless told otherwise
  ;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false
  const store = new SessionStore(options.dataDir)
  const rules = new ApprovalRulesStore(options.dataDir)
  const sessions = new Map<string, Session>()
  const listeners = new Set<(e: EventEnvelope) => void>()
  let modelSettings = options.modelSettings
  let model = createLanguageModel(modelSettings)
  const classifyError = (err: unknown): CortexError => classifyProviderError(err, modelSettings)
  const logger = options.logger ?? NOOP_LOGGER
  const maxSessions = options.maxSessions ?? maxSessionsFromEnv()
  const idleTimeoutMs = options.streamIdleTimeoutMs ?? streamIdleTimeoutMs(process.env[STREAM_IDLE_TIMEOUT_ENV])
  compactionFor(modelSettings, process.env, options.compaction) // a bad setting is refused before any session folder exists
  /** Refuse a new open session past the cap (each session holds at most one guest, so guests follow). */
  const checkCap = (): void => checkSessionCap(sessions.size, maxSessions)

  // each session's model connection; a set_model lands in meta.json too (ADR 0028)
  const models = modelRequests(() => modelSettings, (id, next) => {
    const meta = store.readMeta(id)
    if (meta) recordModel(meta, next)
  })
  const publish = (envelope: EventEnvelope): void => {
    if (envelope.event.type === 'mode_changed') persistMode(envelope.sessionId, envelope.event.mode)
    if (envelope.event.type === 'model_changed') models.changed(envelope.sessionId, envelope.event.model)
    for (const l of listeners) {
      try {
        l(envelope)
      } catch (err) {
        // a failing subscriber must not break the session; the envelope stays in the log
        logger.debug('event subscriber threw', { sessionId: envelope.sessionId, seq: envelope.seq, type: envelope.event.type, ...errorFields(err) })
      }
    }
  }
  const { persistMode, recordModel } = metaRecorder(store, logger, () => modelSettings)
  /** Build a live session with the service's shared parts, register it and start attaching its guest. */
  const admit = (own: Pick<SessionDeps, 'id' | 'repo' | 'mode' | 'sandbox' | 'createdAt' | 'log' | 'resumed' | 'approvalPolicy'>, opened?: SessionEvent, settings = modelSettings): Session => {
    models.track(own.id, settings)
    const session = new Session({
      ...own,
      model: settings === modelSettings ? model : createLanguageModel(settings),
      switchModel: (id) => models.switchModel(own.id, id),
      modelFor: (id) => createLanguageModel({ ...models.settingsOf(own.id), modelId: id }),
      classifyError,
      publish,
      guests: options.guests, home: options.dataDir,
      rules,
      catalog: TOOL_CATALOG,
      streamIdleTimeoutMs: idleTimeoutMs,
      // context window (table, CORTEX_CONTEXT_WINDOW), threshold (CORTEX_COMPACT_THRESHOLD), summary model (harness/compaction/settings.ts)
      compaction: compactionFor(modelSettings, process.env, options.compaction), mcpSchemaBudget: options.mcpSchemaBudget,
      logger: childLogger(logger, { sessionId: own.id }), images: new SessionImages(join(store.dir(own.id), 'images'), checkImage) // each once, by hash
    })
    sessions.set(own.id, session)
    if (opened) session.emit(opened)
    logger.info(opened ? 'session opened' : 'session resumed', { sessionId: own.id, repo: own.repo, mode: own.mode, sandbox: own.sandbox })
    // a failed attach is reported by the session itself (guest_status error event and its log)
    if (options.eagerGuest ?? true) session.ensureGuest().catch(() => undefined)
    return session
  }
  const info = (s: Session): SessionInfo => ({
    id: s.id,
    repo: s.repo,
    mode: s.getMode(),
    sandbox: s.getSandbox(),
    approvalPolicy: s.getApprovalPolicy(),
    createdAt: s.createdAt,
    running: s.isRunning()
  })
  const get = (id: string): Session => {
    const s = sessions.get(id)
    if (!s) throw new CortexError('session_not_found', `no open session with id ${id}`)
    return s
  }
  const { closeSessionShells, ...shellApi } = shellRequests(get)

  return {
    async openSession(input) {
      const { repo, mode, sandbox, approvalPolicy } = parse('openSession', input)
      checkCap()
      const root = resolveRepo(repo)
      const { warnings } = checkRepoPolicy(root, { dataDir: options.dataDir, allowRootRepo: options.allowRootRepo })
      const id = `${new Date().toISOString().slice(0, 10).replace(/-/g, '')}-${randomUUID().slice(0, 8)}`
      const createdAt = Date.now()
      const log = store.create({
        id,
        repo: root,
        mode,
        createdAt,
        ...modelRecordOf(modelSettings)
      })
      const session = admit(
        { id, repo: root, mode, sandbox, createdAt, log, approvalPolicy },
        { type: 'session_opened', repo: root, mode, sandbox, approvalPolicy, ...modelRecordOf(modelSettings) }
      )
      for (const message of warnings) session.emit({ type: 'host_exec_warning', paths: [root], message })
      return info(session)
    },
    async resumeSession(input) {
      const { sessionId, sandbox: wanted, approvalPolicy } = parse('resumeSession', input)
      if (sessions.has(sessionId)) return info(get(sessionId))
      checkCap()
      const meta = /^[A-Za-z0-9_-]+$/.test(sessionId) ? store.readMeta(sessionId) : null
      if (!meta) throw new CortexError('session_not_found', `no stored session with id ${sessionId} in ${options.dataDir}`)
      const root = resolveRepo(meta.repo)
      const policy = checkRepoPolicy(root, { dataDir: options.dataDir, allowRootRepo: options.allowRootRepo })
      const { log, envelopes, skipped, mode, sandbox } = loadStoredSession(store, sessionId, meta.mode, wanted)
      // the model the session last chose, when the provider is still the same
      const settings = resumedModelSettings(modelSettings, envelopes)
      const session = admit({
        id: sessionId, repo: root, mode, sandbox, createdAt: meta.createdAt,
        log, resumed: envelopes, ...(approvalPolicy ? { approvalPolicy } : {})
      }, undefined, settings)
      // the user hears what a damaged log lost; a turn a crash left open is closed before anything else
      const [notice, ...repairs] = resumeEvents(envelopes.map((x) => x.event), skipped, settings)
      // a review-only resume is no continuation: no notice row unless it closes a crashed turn
      const quiet = options.reviewOnly && notice?.type === 'session_resumed' && notice.interruptedCalls === 0 && !notice.interruptedTurn
      for (const e of quiet || !notice ? repairs : [notice, ...repairs]) session.emit(e)
      if (skipped > 0) logger.warn('damaged session log records skipped', { sessionId, skipped })
      if (!options.reviewOnly) recordModel(meta, settings)
      for (const message of policy.warnings) session.emit({ type: 'host_exec_warning', paths: [root], message })
      // a turn a crash cut off gets its turn_changes now, before any review or undo of it (ADR 0010)
      if (options.eagerGuest ?? true) void session.checkpoints.recoverAtResume()
      return info(session)
    },
    async submit(input) {
      const { sessionId, op } = parse('submit', input)
      await get(sessionId).submit(op)
      return { ok: true as const }
    },
    async closeSession(input) {
      const { sessionId } = parse('closeSession', input)
      const s = get(sessionId)
      await closeSessionShells(sessionId)
      sessions.delete(sessionId)
      models.forget(sessionId)
      await s.close()
      return { ok: true as const }
    },
    async sessionEvents(input) {
      const { sessionId } = parse('sessionEvents', input)
      return get(sessionId).envelopes()
    },
    async listApprovalRules(input) {
      const { repo } = parse('listApprovalRules', input)
      return rules.list(resolveRepo(repo))
    },
    async removeApprovalRule(input) {
      const { repo, ruleId } = parse('removeApprovalRule', input)
      rules.remove(resolveRepo(repo), ruleId)
      return { ok: true as const }
    },
    ...checkpointRequests(get),
    ...shellApi,
    ...deskRequests({ store, open: (id) => sessions.get(id), get }),
    ...mcpRequests({ home: options.dataDir, live: (id) => sessions.get(id)?.mcpServers(), ...(options.openExternal && { openExternal: options.openExternal }), ...(options.logger && { logger: options.logger }) }),
    listModels: models.listModels,
    async listCommands(input) {
      const { sessionId } = parse('listCommands', input)
      return { commands: get(sessionId).commands.list() }
    },
    ...settingsRequests({
      dataDir: options.dataDir,
      secrets: options.secrets,
      current: () => modelSettings,
      apply: (next) => {
        modelSettings = next
        model = createLanguageModel(next)
        logger.info('model settings changed', { provider: next.provider, model: next.modelId })
      }
    }),
    async listSessions(input) {
      parse('listSessions', input)
      return [...sessions.values()].map(info)
    },
    onEvent(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async idle(sessionId) {
      await get(sessionId).idle()
    },
    async shutdown() {
      const all = [...sessions.values()]
      await Promise.all(all.map((s) => closeSessionShells(s.id)))
      sessions.clear()
      await Promise.all(all.map((s) => s.close()))
      await options.guests.close?.()
      logger.debug('session service shut down', { sessions: all.length })
    }
  }
}

export { MAX_SESSIONS_ENV } from './service-inputs'
