// The per-model table and what a thinking level asks of each provider (ADR 0024).
import { describe, expect, it } from 'vitest'
import { CortexError } from '../../shared/errors'
import { modelLimits } from './model-table'
import { checkThinkingLevel, thinkingRequest } from './thinking'

describe('thinking requests', () => {
  it('gives output caps per model instead of one fixed number', () => {
    expect(modelLimits('anthropic', 'claude-sonnet-4-5').maxOutputTokens).toBe(64_000)
    expect(modelLimits('anthropic', 'claude-opus-4-1-20250805').maxOutputTokens).toBe(32_000)
    expect(modelLimits('anthropic', 'claude-opus-4-5').maxOutputTokens).toBe(64_000)
    expect(modelLimits('anthropic', 'claude-3-5-haiku-latest')).toMatchObject({ maxOutputTokens: 8_192, thinking: 'none' })
    expect(modelLimits('anthropic', 'my-proxy-model').maxOutputTokens).toBe(16_384)
    expect(modelLimits('openai', 'gpt-5')).toMatchObject({ maxOutputTokens: 128_000, thinking: 'effort', defaultThinking: 'medium' })
    expect(modelLimits('openai', 'gpt-5-chat-latest').thinking).toBe('none')
    expect(modelLimits('openai-compatible', 'qwen3-coder:30b').thinking).toBe('effort')
    expect(modelLimits('openai-compatible', 'llama3.1').maxOutputTokens).toBeUndefined()
  })

  it('Anthropic: a budget inside the model cap; off sends no thinking', () => {
    expect(thinkingRequest('anthropic', 'claude-sonnet-4-5', 'low')).toEqual({
      maxOutputTokens: 64_000 - 4_096, providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 4_096 } } }
    })
    // the budget is at most half the cap (opus 4.1: 32k)
    expect(thinkingRequest('anthropic', 'claude-opus-4-1', 'high').providerOptions).toEqual({ anthropic: { thinking: { type: 'enabled', budgetTokens: 16_000 } } })
    expect(thinkingRequest('anthropic', 'claude-sonnet-4-5', 'off')).toEqual({ maxOutputTokens: 64_000 })
    expect(thinkingRequest('anthropic', 'claude-sonnet-4-5', undefined).providerOptions).toBeDefined() // default medium
  })

  it('OpenAI Responses: effort, summaries, nothing stored; off is the lowest effort the model takes', () => {
    expect(thinkingRequest('openai', 'gpt-5', 'high').providerOptions).toEqual({
      openai: { store: false, reasoningEffort: 'high', reasoningSummary: 'auto', include: ['reasoning.encrypted_content'] }
    })
    expect(thinkingRequest('openai', 'gpt-5', 'off').providerOptions?.openai).toMatchObject({ reasoningEffort: 'minimal' })
    expect(thinkingRequest('openai', 'gpt-5.1', 'off').providerOptions?.openai).toMatchObject({ reasoningEffort: 'none' })
    expect(thinkingRequest('openai', 'gpt-4o', undefined).providerOptions).toEqual({ openai: { store: false } })
  })

  it('OpenAI-compatible: reasoning_effort only when asked and the model reasons', () => {
    expect(thinkingRequest('openai-compatible', 'qwen3', 'medium').providerOptions).toEqual({ openaiCompatible: { reasoningEffort: 'medium' } })
    expect(thinkingRequest('openai-compatible', 'qwen3', undefined).providerOptions).toBeUndefined()
    expect(thinkingRequest('openai-compatible', 'llama3.1', 'high').providerOptions).toBeUndefined()
  })

  it('refuses a level other than off for a model that cannot think, naming it', () => {
    expect(() => checkThinkingLevel('openai', 'gpt-4o', 'high')).toThrow(CortexError)
    expect(() => checkThinkingLevel('openai', 'gpt-4o', 'high')).toThrow(/gpt-4o does not support thinking/)
    expect(() => checkThinkingLevel('openai', 'gpt-4o', 'off')).not.toThrow()
    expect(() => checkThinkingLevel('anthropic', 'claude-sonnet-4-5', 'high')).not.toThrow()
  })
})
