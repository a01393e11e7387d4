/**
 * Model settings: which provider, model id, base URL and API key a session talks to, resolved from
 * command-line style flags and an environment map. Pure (no I/O, never reads `process.env` itself),
 * so the CLI, the desktop app and the tests resolve settings the same way.
 *
 * Precedence, per setting (first present wins):
 * - provider: `flags.provider` → `CORTEX_PROVIDER` → inferred: `ANTHROPIC_API_KEY` set → anthropic,
 *   else `OPENAI_API_KEY` set → openai, else openai-compatible (a local server such as Ollama).
 * - model:    `flags.model` → `CORTEX_MODEL` → the provider default ({@link DEFAULT_MODEL_IDS});
 *   openai-compatible has no default, so a model is required there.
 * - base URL: `flags.baseUrl` → the provider's env var ({@link PROVIDER_ENV}.baseUrl:
 *   `ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`, `CORTEX_BASE_URL`) → the provider default
 *   ({@link DEFAULT_BASE_URLS}); openai-compatible has no default, so a base URL is required there.
 * - API key:  the provider's own env var only (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`,
 *   `CORTEX_API_KEY`); required for anthropic and openai, optional for openai-compatible (Ollama and
 *   llama.cpp need none). `CORTEX_API_KEY` deliberately does NOT override the hosted providers' keys:
 *   a key meant for a local or self-hosted server must never be sent to api.anthropic.com or
 *   api.openai.com by switching `--provider`.
 */
import { CortexError } from '../../shared/errors'
import { ProviderNameSchema, type ProviderName } from '../../shared/contract'

/** Resolved settings for one model connection. `baseUrl` has no trailing slash. */
export interface ModelSettings {
  provider: ProviderName
  /** Provider-specific model id, e.g. `claude-sonnet-4-5`, `gpt-5`, `qwen2.5-coder:7b`. */
  modelId: string
  /** API prefix the client appends `/messages`, `/responses` or `/chat/completions` to, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl?: string
  /** Secret sent as `x-api-key` (anthropic) or `Authorization: Bearer` (openai, openai-compatible). */
  apiKey?: string
}

/** Flags as given on the command line (`--provider`, `--model`, `--base-url`) or in app settings. */
export interface ModelFlags {
  provider?: ProviderName
  model?: string
  baseUrl?: string
}

/**
 * Default model ids for the hosted providers, used when neither `--model` nor `CORTEX_MODEL` is set.
 * Both are long-lived aliases known to the installed SDKs (@ai-sdk/anthropic 4.0.105 model catalog;
 * @ai-sdk/openai 4.0.118 `responses` endpoint catalog). openai-compatible has no default: the model
 * depends on what the local server has pulled.
 */
export const DEFAULT_MODEL_IDS = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-5'
} as const satisfies Partial<Record<ProviderName, string>>

/**
 * Default API prefixes (the SDKs' own defaults, made explicit so the SDK never falls back to reading
 * `process.env` itself). openai-compatible has none; {@link SUGGESTED_LOCAL_BASE_URL} is suggested.
 */
export const DEFAULT_BASE_URLS = {
  anthropic: 'https://api.anthropic.com/v1',
  openai: 'https://api.openai.com/v1'
} as const satisfies Partial<Record<ProviderName, string>>

/** Ollama's OpenAI-compatible endpoint, suggested when openai-compatible has no base URL. */
export const SUGGESTED_LOCAL_BASE_URL = 'http://127.0.0.1:11434/v1'

/** The environment variable names each provider reads, for resolution and for error messages. */
export const PROVIDER_ENV = {
  anthropic: { apiKey: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL' },
  openai: { apiKey: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL' },
  'openai-compatible': { apiKey: 'CORTEX_API_KEY', baseUrl: 'CORTEX_BASE_URL' }
} as const satisfies Record<ProviderName, { apiKey: string; baseUrl: string }>

/** Env var naming the provider when `--provider` is absent. */
export const PROVIDER_ENV_VAR = 'CORTEX_PROVIDER'
/** Env var naming the model when `--model` is absent. */
export const MODEL_ENV_VAR = 'CORTEX_MODEL'

/**
 * Human names of the settings that fix each part of a provider's configuration, e.g.
 * `{ apiKey: 'ANTHROPIC_API_KEY', baseUrl: '--base-url (or ANTHROPIC_BASE_URL)', model: '--model (or CORTEX_MODEL)' }`.
 * Used in every provider_config / provider_unreachable / provider_error message.
 */
export function settingNames(provider: ProviderName): { apiKey: string; baseUrl: string; model: string } {
  const env = PROVIDER_ENV[provider]
  return {
    apiKey: env.apiKey,
    baseUrl: `--base-url (or ${env.baseUrl})`,
    model: `--model (or ${MODEL_ENV_VAR})`
  }
}

/** Trimmed non-empty string, or undefined. */
function present(value: string | undefined): string | undefined {
  const v = value?.trim()
  return v ? v : undefined
}

/** Choose the provider: flag, then CORTEX_PROVIDER, then inference from which key is set. */
function resolveProvider(flags: ModelFlags, env: NodeJS.ProcessEnv): ProviderName {
  if (flags.provider) return flags.provider
  const fromEnv = present(env[PROVIDER_ENV_VAR])
  if (fromEnv) {
    const parsed = ProviderNameSchema.safeParse(fromEnv)
    if (!parsed.success) {
      throw new CortexError(
        'provider_config',
        `${PROVIDER_ENV_VAR}="${fromEnv}" is not a provider: set --provider or ${PROVIDER_ENV_VAR} to one of ${ProviderNameSchema.options.join(', ')}`
      )
    }
    return parsed.data
  }
  if (present(env.ANTHROPIC_API_KEY)) return 'anthropic'
  if (present(env.OPENAI_API_KEY)) return 'openai'
  return 'openai-compatible'
}

/** Validate an http(s) base URL and drop trailing slashes; throws provider_config naming `setting`. */
function normaliseBaseUrl(raw: string, setting: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new CortexError('provider_config', `${setting} "${raw}" is not a valid URL: set it to e.g. ${SUGGESTED_LOCAL_BASE_URL}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CortexError('provider_config', `${setting} "${raw}" must be an http:// or https:// URL, e.g. ${SUGGESTED_LOCAL_BASE_URL}`)
  }
  return raw.trim().replace(/\/+$/, '')
}

/**
 * Resolve the model settings for a session (see the module header for precedence).
 *
 * @param flags `--provider`, `--model`, `--base-url` as given; empty strings count as absent.
 * @param env an environment map (pass `process.env` in production, a literal in tests).
 * @returns complete settings; `baseUrl` is always set (defaults made explicit), `apiKey` may be
 *   absent only for openai-compatible.
 * @throws CortexError('provider_config') with a one-line message naming the flag or env var to set
 *   when: the provider in CORTEX_PROVIDER is unknown; the key is missing (anthropic, openai); the
 *   model is missing (openai-compatible); the base URL is missing (openai-compatible) or is not an
 *   http(s) URL.
 */
export function resolveModelSettings(flags: ModelFlags, env: NodeJS.ProcessEnv): ModelSettings {
  const provider = resolveProvider(flags, env)
  const names = settingNames(provider)
  const envNames = PROVIDER_ENV[provider]

  const flagUrl = present(flags.baseUrl)
  const envUrl = present(env[envNames.baseUrl])
  const rawUrl = flagUrl ?? envUrl
  let baseUrl: string
  if (rawUrl) {
    baseUrl = normaliseBaseUrl(rawUrl, flagUrl ? '--base-url' : envNames.baseUrl)
  } else if (provider === 'openai-compatible') {
    throw new CortexError(
      'provider_config',
      `openai-compatible needs a server URL: set ${names.baseUrl}, e.g. ${SUGGESTED_LOCAL_BASE_URL} for Ollama`
    )
  } else {
    baseUrl = DEFAULT_BASE_URLS[provider]
  }

  const model = present(flags.model) ?? present(env[MODEL_ENV_VAR])
  let modelId: string
  if (model) modelId = model
  else if (provider === 'openai-compatible') {
    throw new CortexError('provider_config', `openai-compatible needs a model id: set ${names.model}, e.g. --model qwen2.5-coder:7b`)
  } else modelId = DEFAULT_MODEL_IDS[provider]

  const apiKey = present(env[envNames.apiKey])
  if (!apiKey && provider !== 'openai-compatible') {
    throw new CortexError('provider_config', `${provider} needs an API key: set ${envNames.apiKey}`)
  }

  return { provider, modelId, baseUrl, ...(apiKey ? { apiKey } : {}) }
}
