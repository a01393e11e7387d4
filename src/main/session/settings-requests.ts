/**
 * The session service's settings requests (contract: src/shared/settings.ts): read and save the
 * settings file, keep keys in the host's SecretStore (never returned), resolve the model connection
 * the saved settings give and hand it to the service so sessions opened afterwards use it, and
 * "Test connection": GET `<baseUrl>/models` with the key, under a 10 s deadline.
 */
import { parseRequest as parse, type CortexApi } from '../../shared/contract'
import { CortexError } from '../../shared/errors'
import type { Settings, SettingsView } from '../../shared/settings'
import { DEFAULT_BASE_URLS, PROVIDER_ENV, resolveModelSettings, type ModelSettings } from '../providers'
import { SettingsStore, type SecretStore } from '../store/settings-store'

/** Deadline of a connection test (ms). */
export const TEST_CONNECTION_MS = 10_000

/** What the settings requests need from the service. */
export interface SettingsDeps {
  dataDir: string
  /** Where keys live; default: the environment (read-only). */
  secrets?: SecretStore
  /** The environment model settings fall back to (default process.env). */
  env?: NodeJS.ProcessEnv
  /** The model connection in force now. */
  current(): ModelSettings | null
  /** Use `settings` for sessions opened from now on. */
  apply(settings: ModelSettings): void
}

type SettingsApi = Pick<CortexApi, 'getSettings' | 'saveSettings' | 'testConnection'>

/**
 * The model connection saved settings give: provider, model and base URL from the settings (empty
 * ones from the environment), the key from `secrets` (else the environment).
 * @throws CortexError('provider_config') naming what is missing
 */
export function modelSettingsFrom(settings: Settings, secrets: SecretStore | undefined, env: NodeJS.ProcessEnv): ModelSettings {
  const key = secrets?.get(settings.provider)
  const merged: NodeJS.ProcessEnv = { ...env, ...(key ? { [PROVIDER_ENV[settings.provider].apiKey]: key } : {}) }
  return resolveModelSettings({ provider: settings.provider, model: settings.model || undefined, baseUrl: settings.baseUrl || undefined }, merged)
}

/**
 * Why a fetch of `base` got no answer, in words a user can act on: the cause's code (ECONNREFUSED…),
 * or for a port fetch refuses outright (the "bad ports" list browsers share: 9, 25, 6000, …) which
 * port and what to do, where undici says only `bad port`.
 */
export function fetchFailure(err: unknown, base: string): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause
  if (cause?.message === 'bad port') {
    const port = /^\w+:\/\/[^/:]+:(\d+)/.exec(base)?.[1] ?? '?'
    return `port ${port} is on the list of ports fetch refuses to use (like browsers: 9, 25, 6000, …); run the model server on another port`
  }
  return cause?.code ?? cause?.message ?? String(err)
}

/** The settings request methods (see the module comment). */
export function settingsRequests(deps: SettingsDeps): SettingsApi {
  const store = new SettingsStore(deps.dataDir)
  const env = deps.env ?? process.env
  const secrets = deps.secrets
  const view = (settings: Settings, error?: string): SettingsView => {
    const now = deps.current()
    const key = secrets?.get(settings.provider) ?? env[PROVIDER_ENV[settings.provider].apiKey]
    return {
      settings,
      keySaved: Boolean(key && key.trim()),
      keyStorage: secrets?.kind ?? 'environment',
      inForce: now ? { provider: now.provider, model: now.modelId, baseUrl: now.baseUrl ?? '' } : null,
      ...(error ? { inForceError: error } : {}),
      fileProblems: store.problems(),
      file: store.file
    }
  }
  return {
    async getSettings(input) {
      parse('getSettings', input)
      return view(store.read())
    },
    async saveSettings(input) {
      const { settings, apiKey } = parse('saveSettings', input)
      if (apiKey !== undefined && (!secrets || secrets.kind === 'environment')) {
        throw new CortexError('invalid_input', `apiKey: keys come from the server's environment here: set ${PROVIDER_ENV[settings.provider].apiKey} where Cortex runs`)
      }
      // what the dialog showed (a bad value's default included) is what is saved; a damaged file
      // refuses the save before the key changes
      store.write(settings, { replaceInvalid: true })
      if (apiKey !== undefined) secrets!.set(settings.provider, apiKey.trim())
      try {
        deps.apply(modelSettingsFrom(settings, secrets, env))
      } catch (err) {
        // saved; new sessions keep the connection in force until the settings are complete
        return view(settings, err instanceof Error ? err.message : String(err))
      }
      return view(settings)
    },
    async testConnection(input) {
      const { settings, apiKey } = parse('testConnection', input)
      const key = apiKey?.trim() || secrets?.get(settings.provider) || env[PROVIDER_ENV[settings.provider].apiKey]
      const fallback = settings.provider === 'openai-compatible' ? env[PROVIDER_ENV[settings.provider].baseUrl] : (env[PROVIDER_ENV[settings.provider].baseUrl] ?? DEFAULT_BASE_URLS[settings.provider])
      const base = (settings.baseUrl || fallback || '').replace(/\/+$/, '')
      if (!base) return { ok: false, detail: 'no base URL: set one (e.g. http://127.0.0.1:11434/v1 for Ollama)', models: [] }
      const headers: Record<string, string> = { accept: 'application/json' }
      if (key) {
        if (settings.provider === 'anthropic') {
          headers['x-api-key'] = key
          headers['anthropic-version'] = '2023-06-01'
        } else headers.authorization = `Bearer ${key}`
      }
      let res: Response
      try {
        res = await fetch(`${base}/models`, { headers, signal: AbortSignal.timeout(TEST_CONNECTION_MS) })
      } catch (err) {
        const why = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${TEST_CONNECTION_MS / 1000} s` : fetchFailure(err, base)
        return { ok: false, detail: `could not reach ${base}: ${why}`, models: [] }
      }
      const text = await res.text().catch(() => '')
      let models: string[] = []
      try {
        const body = JSON.parse(text) as { data?: { id?: unknown }[] }
        models = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string').slice(0, 200)
      } catch {
        // not JSON: no model list
      }
      if (res.ok) return { ok: true, status: res.status, detail: `${base} answered: ${models.length} model${models.length === 1 ? '' : 's'} listed`, models }
      const detail =
        res.status === 401 || res.status === 403
          ? `${base} refused the key (HTTP ${res.status})`
          : `${base} is reachable but answered HTTP ${res.status} to GET /models${text ? `: ${text.slice(0, 200)}` : ''}`
      return { ok: false, status: res.status, detail, models }
    }
  }
}
