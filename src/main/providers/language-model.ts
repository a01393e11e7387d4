/**
 * Build the AI SDK language model object for resolved {@link ModelSettings}. One factory per
 * provider package; everything is passed explicitly (base URL, key) so the SDKs never read
 * `process.env` behind our back (they otherwise fall back to ANTHROPIC_BASE_URL, OPENAI_API_KEY, …).
 *
 * Wire formats (what the returned model POSTs, relative to `settings.baseUrl`):
 * - anthropic:         `POST {baseUrl}/messages`         Anthropic Messages API, SSE
 * - openai:            `POST {baseUrl}/responses`        OpenAI Responses API, SSE (the default model
 *                                                          object of @ai-sdk/openai ≥ 2 is the Responses model)
 * - openai-compatible: `POST {baseUrl}/chat/completions` OpenAI Chat Completions, SSE; a `<think>…</think>`
 *                                                          block in the text becomes reasoning (ADR 0024), as
 *                                                          `reasoning_content` deltas already do
 */
import { extractReasoningMiddleware, wrapLanguageModel, type LanguageModel } from 'ai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { CortexError } from '../../shared/errors'
import { lazyLanguageModel } from './lazy-model'
import { DEFAULT_BASE_URLS, settingNames, type ModelSettings } from './model-settings'

/** Provider name reported by openai-compatible models (`model.provider` is `${this}.chat`). */
export const OPENAI_COMPATIBLE_PROVIDER_NAME = 'openai-compatible'

/**
 * Create the language model to pass as `model` to `streamText`. The anthropic and openai SDKs are
 * imported on the model's first call (lazy-model.ts), so a process loads only the one it uses.
 *
 * @param settings output of `resolveModelSettings` (or equivalent literal in tests).
 * @returns an AI SDK `LanguageModel` (a LanguageModelV4 object, never a gateway id string).
 * @throws CortexError('provider_config') if a hosted provider has no API key or openai-compatible
 *   has no base URL (only possible when settings were built by hand).
 */
export function createLanguageModel(settings: ModelSettings): LanguageModel {
  const names = settingNames(settings.provider)
  switch (settings.provider) {
    case 'anthropic': {
      if (!settings.apiKey) throw new CortexError('provider_config', `anthropic needs an API key: set ${names.apiKey}`)
      const { apiKey, baseUrl, modelId } = settings
      return lazyLanguageModel('anthropic.messages', modelId, async () => {
        const { createAnthropic } = await import('@ai-sdk/anthropic')
        return createAnthropic({ apiKey, baseURL: baseUrl ?? DEFAULT_BASE_URLS.anthropic })(modelId)
      })
    }
    case 'openai': {
      if (!settings.apiKey) throw new CortexError('provider_config', `openai needs an API key: set ${names.apiKey}`)
      const { apiKey, baseUrl, modelId } = settings
      // provider(id) === provider.responses(id) in @ai-sdk/openai 4.x: the Responses API.
      return lazyLanguageModel('openai.responses', modelId, async () => {
        const { createOpenAI } = await import('@ai-sdk/openai')
        return createOpenAI({ apiKey, baseURL: baseUrl ?? DEFAULT_BASE_URLS.openai })(modelId)
      })
    }
    case 'openai-compatible': {
      if (!settings.baseUrl) throw new CortexError('provider_config', `openai-compatible needs a server URL: set ${names.baseUrl}`)
      const provider = createOpenAICompatible({
        name: OPENAI_COMPATIBLE_PROVIDER_NAME,
        baseURL: settings.baseUrl,
        ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
        // Ask for a final usage chunk (stream_options.include_usage); Ollama, llama.cpp, vLLM accept it.
        includeUsage: true
      })
      // open-weights models (Qwen, DeepSeek R1) put their thinking in <think> blocks: shown as reasoning, never as the answer
      return wrapLanguageModel({ model: provider.chatModel(settings.modelId), middleware: extractReasoningMiddleware({ tagName: 'think' }) })
    }
  }
}
