/**
 * What the service writes to a session's meta.json besides its creation: the mode last set (a
 * resume starts from it) and the model connection in use (a later resume reuses it). Never fatal:
 * the event log holds the same facts.
 */
import type { EventEnvelope } from '../../shared/events'
import { errorFields, type Logger } from '../../shared/logger-types'
import type { Mode } from '../../shared/modes'
import type { ModelSettings } from '../providers'
import type { SandboxPolicy } from '../../shared/sandbox'
import type { SessionLog, SessionMeta, SessionStore } from '../store/session-store'
import { modelRecordOf } from './resume'

/** The meta.json writers of one service. */
export interface MetaRecorder {
  /** Record a mode switch in meta.json (the stored mode a resume starts from). */
  persistMode(sessionId: string, mode: Mode): void
  /** Record the model connection now in use (default the service's) in meta.json (a later resume reuses it). */
  recordModel(meta: SessionMeta, settings?: ModelSettings): void
}

/** The meta.json writers over `store`; failures are logged as warnings. */
export function metaRecorder(store: SessionStore, logger: Logger, modelSettings: () => ModelSettings): MetaRecorder {
  return {
    persistMode(sessionId, mode) {
      try {
        const meta = store.readMeta(sessionId)
        if (meta && meta.mode !== mode) store.writeMeta({ ...meta, mode })
      } catch (err) {
        // the event log still holds the switch, and a resume replays it
        logger.warn('could not record the mode in meta.json', { sessionId, mode, ...errorFields(err) })
      }
    },
    recordModel(meta, settings) {
      try {
        const next: SessionMeta = { ...(store.readMeta(meta.id) ?? meta) }
        delete next.provider
        delete next.model
        delete next.baseUrl
        store.writeMeta({ ...next, ...modelRecordOf(settings ?? modelSettings()) })
      } catch (err) {
        logger.warn('could not record the model connection in meta.json', { sessionId: meta.id, ...errorFields(err) })
      }
    }
  }
}

/** A stored session as a resume needs it: its log (locked, open for appending), its events, and the mode and sandbox it left off in. */
export interface StoredSession {
  log: SessionLog
  envelopes: EventEnvelope[]
  /** Damaged records skipped while loading. */
  skipped: number
  mode: Mode
  sandbox: SandboxPolicy
}

/**
 * Open stored session `sessionId` for a resume: the lock first (refused while another process has
 * it open), then the log, streamed. The mode is the last set (`metaMode` before any event); the
 * sandbox is `wanted`, else the last the log set, else `workspace-write`.
 * @throws CortexError from the store (`busy` while locked elsewhere, unreadable log); the lock is released on a load failure
 */
export function loadStoredSession(store: SessionStore, sessionId: string, metaMode: Mode, wanted?: SandboxPolicy): StoredSession {
  const log = store.openLog(sessionId)
  let envelopes: EventEnvelope[]
  let skipped: number
  try {
    ;({ envelopes, skipped } = store.load(sessionId))
  } catch (err) {
    log.close()
    throw err
  }
  let mode = metaMode
  let sandbox = wanted
  for (const { event } of envelopes) {
    if (event.type === 'mode_changed' || event.type === 'session_opened') mode = event.mode
    if (!wanted && event.type === 'sandbox_changed') sandbox = event.policy
    if (!wanted && event.type === 'session_opened' && event.sandbox) sandbox = event.sandbox
  }
  return { log, envelopes, skipped, mode, sandbox: sandbox ?? 'workspace-write' }
}
