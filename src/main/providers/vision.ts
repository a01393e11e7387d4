/**
 * Which models take images (ADR 0025): one table by provider and model id, so an image reaches a
 * vision-capable model as an image part and any other model gets a clear text note instead.
 * `CORTEX_MODEL_IMAGES=1` (or `0`) overrides the table for a model it does not know.
 */

/** Model ids (lower case, any `vendor/` prefix dropped) of OpenAI-compatible servers' vision models. */
const OPEN_VISION = /(vision|[-_.:]vl\b|vl[-_.:]|llava|pixtral|gemma-?3|llama-?4|minicpm-v|moondream|bakllava|gpt-4o|gpt-4\.1|gpt-5|gemini|claude|internvl|cogvlm|molmo|smolvlm|granite-vision)/

/**
 * Whether `modelId` on `provider` accepts image input.
 * @param provider the settings' provider name (`anthropic`, `openai`, `openai-compatible`) or the
 *   AI SDK's provider id (`anthropic.messages`, `openai.responses`, `<name>.chat`)
 * @param env where `CORTEX_MODEL_IMAGES` is read (1/true: yes, 0/false: no)
 */
export function acceptsImages(provider: string, modelId: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const forced = env.CORTEX_MODEL_IMAGES?.trim().toLowerCase()
  if (forced === '1' || forced === 'true') return true
  if (forced === '0' || forced === 'false') return false
  const id = modelId.toLowerCase().replace(/^.*\//, '')
  if (provider.startsWith('anthropic')) return !/^claude-(instant|2)/.test(id)
  if (provider.startsWith('openai') && !provider.startsWith('openai-compatible')) {
    // every current GPT and o-series model but the text-only ones
    return !/^(gpt-3\.5|gpt-4-(0314|0613|32k)|gpt-4$|o1-mini|o3-mini|text-|davinci|babbage)/.test(id)
  }
  return OPEN_VISION.test(id)
}
