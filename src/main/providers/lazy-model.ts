/**
 * A language model whose provider package is imported on its first call (issue 24 item 3, ADR
 * 0027): a process uses one provider, so the others' SDKs (@ai-sdk/anthropic, @ai-sdk/openai:
 * about a third of the session chunk's source) stay out of the start-up bundle and are compiled
 * only by the process that calls them. Follows the LanguageModelV4 contract of @ai-sdk/provider
 * (`supportedUrls` may be a PromiseLike there).
 */
import type { LanguageModelV4 } from '@ai-sdk/provider'

/**
 * A LanguageModelV4 that reports `provider` and `modelId` at once and runs `load()` (the dynamic
 * import and the provider's factory) once, on the first `doStream`/`doGenerate` or read of
 * `supportedUrls`, then delegates to the model it returned.
 *
 * @param provider the real model's `provider` string (`anthropic.messages`, `openai.responses`):
 *   prompt caching, thinking checks and the model table read it before any call.
 * @throws nothing itself; a failing `load()` rejects the call that triggered it (and every later one).
 */
export function lazyLanguageModel(provider: string, modelId: string, load: () => Promise<LanguageModelV4>): LanguageModelV4 {
  let real: Promise<LanguageModelV4> | undefined
  const get = (): Promise<LanguageModelV4> => (real ??= load())
  return {
    specificationVersion: 'v4',
    provider,
    modelId,
    get supportedUrls() {
      return get().then((m) => m.supportedUrls)
    },
    doGenerate: async (options) => (await get()).doGenerate(options),
    doStream: async (options) => (await get()).doStream(options)
  }
}
