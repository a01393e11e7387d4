/**
 * Anthropic prompt caching: the parts of a request that stay the same from one model step to the
 * next are marked with `cache_control` breakpoints (through the AI SDK's
 * `providerOptions.anthropic.cacheControl`, which @ai-sdk/anthropic turns into `cache_control` on the
 * system block, the tool definition and the message's last content block): the system prompt, the
 * last tool (caching every tool definition before it), and the history prefix up to the newest
 * message, plus the last user message (so a prefix written one step ago is still found after a
 * long tool step). Four breakpoints at most, Anthropic's limit. Other providers cache by themselves
 * (OpenAI) or not at all, and get the request unchanged.
 */
import type { LanguageModel, ModelMessage, SystemModelMessage, ToolSet } from 'ai'

/** The provider options that set one breakpoint (5-minute cache, Anthropic's default). */
export const CACHE_BREAKPOINT = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const

/** Whether `model` is an Anthropic model (its provider id is `anthropic.messages` and the like). */
export function usesAnthropicCache(model: LanguageModel): boolean {
  return typeof model === 'object' && model !== null && typeof model.provider === 'string' && model.provider.startsWith('anthropic')
}

/** The system prompt as a system message carrying a breakpoint. */
export function cachedSystem(text: string): SystemModelMessage {
  return { role: 'system', content: text, providerOptions: CACHE_BREAKPOINT }
}

/** `tools` with a breakpoint on the last one (the cache covers all definitions up to it); a new object, the input is unchanged. */
export function cachedTools(tools: ToolSet): ToolSet {
  const names = Object.keys(tools)
  const last = names.at(-1)
  if (!last) return tools
  return { ...tools, [last]: { ...tools[last]!, providerOptions: { ...tools[last]!.providerOptions, ...CACHE_BREAKPOINT } } }
}

/**
 * `messages` with a breakpoint on the newest message and on the last user message before it (at
 * most two); a new array, the input messages are not modified.
 */
export function cachedHistory(messages: readonly ModelMessage[]): ModelMessage[] {
  const out = messages.slice()
  const mark = (i: number): void => {
    const m = out[i]!
    out[i] = { ...m, providerOptions: { ...m.providerOptions, ...CACHE_BREAKPOINT } }
  }
  const lastIndex = out.length - 1
  if (lastIndex < 0) return out
  mark(lastIndex)
  for (let i = lastIndex - 1; i >= 0; i--) {
    if (out[i]!.role === 'user') {
      mark(i)
      break
    }
  }
  return out
}

/**
 * The system text of one request: `stable` (the system prompt and instructions, the same from
 * step to step) and `turn` (the environment block, refreshed per turn; absent: none).
 */
export interface SystemParts {
  stable: string
  turn?: string
}

/**
 * The system, messages and tools of one request, with breakpoints when `model` is Anthropic's
 * (see the module header) and unchanged otherwise. The turn's block is a second system message
 * after the stable one and carries no breakpoint: a change in it leaves the tools and the stable
 * prompt cached (ADR 0021).
 */
export function promptParts(
  model: LanguageModel,
  system: string | SystemParts,
  messages: ModelMessage[],
  tools: ToolSet
): { system: string | SystemModelMessage | SystemModelMessage[]; messages: ModelMessage[]; tools: ToolSet } {
  const { stable, turn } = typeof system === 'string' ? { stable: system, turn: undefined } : system
  const anthropic = usesAnthropicCache(model)
  const head: string | SystemModelMessage = anthropic ? cachedSystem(stable) : stable
  const sys = turn ? [typeof head === 'string' ? { role: 'system' as const, content: head } : head, { role: 'system' as const, content: turn }] : head
  if (!anthropic) return { system: sys, messages, tools }
  return { system: sys, messages: cachedHistory(messages), tools: cachedTools(tools) }
}
