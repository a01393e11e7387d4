/**
 * Resuming a stored session: the model connection recorded for it (so a resume needs no provider
 * flags), and the notice plus repairs a resumed session starts with: `session_resumed` (damaged
 * records skipped, calls a crash left running), then one "interrupted" result per such call and the
 * end of the turn a crash left open (src/main/harness/resume-repair.ts).
 */
import type { SessionEvent } from '../../shared/events'
import { CRASH_INTERRUPTED_RESULT, findOpenTurn } from '../harness/resume-repair'
import { pausedAtResume } from '../harness/goal'
import type { ModelFlags, ModelSettings } from '../providers'
import { ProviderNameSchema } from '../../shared/contract'
import { SessionStore, modelRecord, type ModelRecord } from '../store/session-store'

/** The model connection of `settings` as stored in meta.json and the log: provider, model id, base URL; never the key. */
export function modelRecordOf(settings: ModelSettings): ModelRecord {
  return modelRecord({ provider: settings.provider, model: settings.modelId, baseUrl: settings.baseUrl })
}

/**
 * The model flags a stored session was last used with (meta.json, rebuilt from the log when lost),
 * for `cortex run --resume ID` without provider flags; an explicit flag wins, and a different
 * `--provider` drops the stored model and base URL (they belong to the other provider).
 * @returns `given` unchanged when the session is unknown or recorded no provider
 */
export function resumeModelFlags(dataDir: string, sessionId: string, given: ModelFlags): ModelFlags {
  if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) return given
  const meta = new SessionStore(dataDir).readMeta(sessionId)
  const provider = ProviderNameSchema.safeParse(meta?.provider)
  if (!meta || !provider.success) return given
  if (given.provider && given.provider !== provider.data) return given
  return {
    provider: provider.data,
    ...((given.model ?? meta.model) ? { model: given.model ?? meta.model } : {}),
    ...((given.baseUrl ?? meta.baseUrl) ? { baseUrl: given.baseUrl ?? meta.baseUrl } : {})
  }
}

/**
 * The events a resumed session emits first, in order: `session_resumed` (with `skipped` damaged
 * records and the connection now in use), then for a turn a crash left open one `tool_call_finished`
 * ("interrupted", an error) per call without a result and its `turn_ended` (reason `stopped`); then
 * a goal the log left active, paused (harness/goal.ts: it resumes only when the user says so).
 */
export function resumeEvents(history: readonly SessionEvent[], skipped: number, settings: ModelSettings): SessionEvent[] {
  const open = findOpenTurn(history)
  const out: SessionEvent[] = [{
    type: 'session_resumed',
    skipped,
    interruptedCalls: open?.calls.length ?? 0,
    ...(open ? { interruptedTurn: open.turnId } : {}),
    ...modelRecordOf(settings)
  }]
  const goal = pausedAtResume(history)
  if (!open) return goal ? [...out, goal] : out
  for (const c of open.calls) {
    out.push({ type: 'tool_call_finished', turnId: open.turnId, callId: c.callId, name: c.name, isError: true, result: CRASH_INTERRUPTED_RESULT })
  }
  out.push({ type: 'turn_ended', turnId: open.turnId, reason: 'stopped' })
  return goal ? [...out, goal] : out
}
