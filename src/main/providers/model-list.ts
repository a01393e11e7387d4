/**
 * The models a provider offers (issue 23, item 10): its server's `GET <baseUrl>/models` list where
 * it has one (OpenAI, Anthropic, and most OpenAI-compatible servers: Ollama, vLLM, LM Studio), under
 * a deadline, plus the per-model table of known ids (prices.ts) for that provider. Never throws:
 * a server without a list gives `detail` saying why, and the table alone.
 */
import type { ListedModel } from '../../shared/model-choice'
import { MODEL_PRICES } from './prices'
import { DEFAULT_BASE_URLS, type ModelSettings } from './model-settings'

/** Deadline of the `/models` request (ms). */
export const LIST_MODELS_MS = 10_000

/** The per-model table's ids for `provider` (Claude models for anthropic, GPT models for openai, none for local servers). */
export function tableModelIds(provider: ModelSettings['provider']): string[] {
  const prefix = provider === 'anthropic' ? 'claude-' : provider === 'openai' ? 'gpt-' : null
  return prefix ? Object.keys(MODEL_PRICES).filter((id) => id.startsWith(prefix)) : []
}

/** Request headers carrying `settings.apiKey` the way the provider wants it. */
function headersOf(settings: ModelSettings): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (!settings.apiKey) return headers
  if (settings.provider === 'anthropic') return { ...headers, 'x-api-key': settings.apiKey, 'anthropic-version': '2023-06-01' }
  return { ...headers, authorization: `Bearer ${settings.apiKey}` }
}

/**
 * The server's model ids then the table's, without duplicates, and why the server gave none.
 * @param timeoutMs deadline of the server request (default {@link LIST_MODELS_MS})
 */
export async function listProviderModels(settings: ModelSettings, timeoutMs = LIST_MODELS_MS): Promise<{ models: ListedModel[]; detail?: string }> {
  const table = tableModelIds(settings.provider).map((id): ListedModel => ({ id, source: 'table' }))
  const base = (settings.baseUrl ?? (settings.provider === 'openai-compatible' ? '' : DEFAULT_BASE_URLS[settings.provider])).replace(/\/+$/, '')
  if (!base) return { models: table, detail: 'no base URL to ask for a model list' }
  let ids: string[]
  try {
    const res = await fetch(`${base}/models`, { headers: headersOf(settings), signal: AbortSignal.timeout(timeoutMs) })
    if (!res.ok) return { models: table, detail: `${base}/models answered HTTP ${res.status}` }
    const body = (await res.json()) as { data?: { id?: unknown }[] }
    ids = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string').slice(0, 500)
  } catch (err) {
    const why = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : err instanceof SyntaxError ? 'not a JSON model list' : 'unreachable'
    return { models: table, detail: `${base}/models: ${why}` }
  }
  const seen = new Set(ids)
  return { models: [...ids.map((id): ListedModel => ({ id, source: 'server' })), ...table.filter((m) => !seen.has(m.id))] }
}
