/**
 * Per-family notes: a few lines added to the shared core where model families behave differently,
 * chosen by the provider id and the model id of the session's model.
 */

/** The model families that get their own notes. */
export type ModelFamily = 'anthropic' | 'openai' | 'gemini' | 'open-weights'

/**
 * The family of a model.
 * @param provider the AI SDK provider id (`anthropic.messages`, `openai.responses`, `openai-compatible.chat`, …)
 * @param modelId the model id as configured (`claude-…`, `gpt-5`, `o3`, `gemini-2.5-pro`, `qwen3-coder`, …)
 * @returns the family; an unknown model on an OpenAI-compatible server counts as open-weights
 */
export function modelFamily(provider: string, modelId: string): ModelFamily {
  const id = modelId.toLowerCase()
  if (provider.startsWith('anthropic') || /claude/.test(id)) return 'anthropic'
  if (/gemini|gemma/.test(id) || provider.startsWith('google')) return id.includes('gemma') ? 'open-weights' : 'gemini'
  if (/^(gpt|o\d|chatgpt|codex)/.test(id.replace(/^.*\//, ''))) return 'openai'
  if (provider.startsWith('openai') && !provider.startsWith('openai-compatible')) return 'openai'
  return 'open-weights'
}

/** The notes of each family (short: the core says the rest). */
export const FAMILY_NOTES: Readonly<Record<ModelFamily, string>> = {
  anthropic: 'Call independent tools in parallel in one step (several reads or searches at once). Keep going through long tasks; do not stop to ask for confirmation of routine steps.',
  openai: 'Make tool calls rather than describing what you would run. Before a group of related calls, say in one line what you are about to do. Prefer edit_file for changes over rewriting whole files.',
  gemini: 'Read the files you change before editing them, and quote the exact text to replace. Do not assume a file\'s contents or a library\'s API from memory; check in the repository.',
  'open-weights': 'Call tools with exactly the argument names of their schema and valid JSON. One clear step at a time: read before you edit, and check each result before the next call. Never invent a tool result.'
}

/**
 * The family section of the prompt.
 * @param family the model's family ({@link modelFamily})
 */
export function familySection(family: ModelFamily): string {
  return `# Notes for this model\n${FAMILY_NOTES[family]}`
}
