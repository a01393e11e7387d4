/**
 * The session service's model choice (issue 23, item 10; ADR 0028): which model connection each
 * open session uses (the service's when it opened, or the last `model_changed` of its log when
 * resumed with the same provider), `listModels` (providers/model-list.ts), and the check behind
 * `set_model`: an id the provider's server does not list is refused (`invalid_input`, naming some it
 * does); without a server list any well-formed id is taken (the table is not exhaustive).
 */
import { parseRequest as parse, type CortexApi } from '../../shared/contract'
import { CortexError } from '../../shared/errors'
import type { EventEnvelope, SessionEvent } from '../../shared/events'
import { createLanguageModel, type ModelSettings } from '../providers'
import { listProviderModels } from '../providers/model-list'

/** Deadline (ms) of the server list a `set_model` is checked against. */
export const SET_MODEL_CHECK_MS = 5_000

/** What a session's `set_model` gets back: the model object for its next turns and the event to record. */
export interface ModelSwitch {
  model: ReturnType<typeof createLanguageModel>
  event: Extract<SessionEvent, { type: 'model_changed' }>
}

/** The connection `base` gives a resumed session whose log chose a model with the same provider (last `model_changed`). */
export function resumedModelSettings(base: ModelSettings, envelopes: readonly EventEnvelope[]): ModelSettings {
  for (let i = envelopes.length - 1; i >= 0; i--) {
    const e = envelopes[i]?.event
    if (e?.type === 'model_changed') return e.provider === base.provider ? { ...base, modelId: e.model } : base
  }
  return base
}

/**
 * Per-session model connections, the `listModels` request and the `set_model` check (see the module comment).
 * @param persist records a session's new connection (meta.json); called on each `model_changed`
 */
export function modelRequests(serviceSettings: () => ModelSettings, persist: (id: string, settings: ModelSettings) => void): Pick<CortexApi, 'listModels'> & {
  /** Remember the connection session `id` uses (at open, resume, and each model_changed). */
  track(id: string, settings: ModelSettings): void
  /** Session `id` emitted model_changed: its connection from now on, in memory and persisted. */
  changed(id: string, modelId: string): void
  /** Forget a closed session. */
  forget(id: string): void
  /** The connection of open session `id`, else the service's. */
  settingsOf(id?: string): ModelSettings
  /**
   * Check `modelId` for session `id`: the model object and event of the switch (not yet recorded).
   * @throws CortexError('invalid_input') when the provider's server lists models and not this one
   */
  switchModel(id: string, modelId: string): Promise<ModelSwitch>
} {
  const bySession = new Map<string, ModelSettings>()
  const settingsOf = (id?: string): ModelSettings => (id && bySession.get(id)) || serviceSettings()
  return {
    track: (id, settings) => void bySession.set(id, settings),
    forget: (id) => void bySession.delete(id),
    changed(id, modelId) {
      const next = { ...settingsOf(id), modelId }
      bySession.set(id, next)
      persist(id, next)
    },
    settingsOf,
    async listModels(input) {
      const { sessionId } = parse('listModels', input)
      const settings = settingsOf(sessionId)
      const { models, detail } = await listProviderModels(settings)
      const current = { provider: settings.provider, model: settings.modelId }
      return detail ? { current, models, detail } : { current, models }
    },
    async switchModel(id, modelId) {
      const settings = settingsOf(id)
      const { models } = await listProviderModels(settings, SET_MODEL_CHECK_MS)
      const server = models.filter((m) => m.source === 'server').map((m) => m.id)
      if (server.length > 0 && !models.some((m) => m.id === modelId)) {
        throw new CortexError('invalid_input', `set_model: ${settings.provider} does not offer "${modelId}"; it lists ${server.slice(0, 8).join(', ')}${server.length > 8 ? ', …' : ''}`)
      }
      // recorded by the service when the session emits model_changed (the turn may have started meanwhile)
      const next = { ...settings, modelId }
      return {
        model: createLanguageModel(next),
        event: { type: 'model_changed', provider: next.provider, model: modelId, ...(next.baseUrl ? { baseUrl: next.baseUrl } : {}) }
      }
    }
  }
}
