import { describe, expect, it } from 'vitest'
import { CortexError } from '../../shared/errors'
import { DEFAULT_BASE_URLS, DEFAULT_MODEL_IDS, resolveModelSettings } from './model-settings'

/** Resolve and return the thrown CortexError (fails the test if nothing or something else is thrown). */
function configError(fn: () => unknown): CortexError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(CortexError)
    const e = err as CortexError
    expect(e.code).toBe('provider_config')
    expect(e.message).not.toContain('\n')
    return e
  }
  throw new Error('expected a provider_config error')
}

describe('resolveModelSettings', () => {
  it('uses documented defaults for anthropic and openai', () => {
    expect(resolveModelSettings({ provider: 'anthropic' }, { ANTHROPIC_API_KEY: 'a' })).toEqual({
      provider: 'anthropic', modelId: DEFAULT_MODEL_IDS.anthropic, baseUrl: DEFAULT_BASE_URLS.anthropic, apiKey: 'a'
    })
    expect(resolveModelSettings({ provider: 'openai' }, { OPENAI_API_KEY: 'o' })).toEqual({
      provider: 'openai', modelId: DEFAULT_MODEL_IDS.openai, baseUrl: DEFAULT_BASE_URLS.openai, apiKey: 'o'
    })
  })

  it('infers the provider from the keys present, else openai-compatible', () => {
    expect(resolveModelSettings({}, { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }).provider).toBe('anthropic')
    expect(resolveModelSettings({}, { OPENAI_API_KEY: 'o' }).provider).toBe('openai')
    expect(resolveModelSettings({ model: 'm', baseUrl: 'http://127.0.0.1:11434/v1' }, {}).provider).toBe('openai-compatible')
    expect(resolveModelSettings({}, { CORTEX_PROVIDER: 'openai', OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' }).provider).toBe('openai')
    expect(resolveModelSettings({ provider: 'anthropic' }, { CORTEX_PROVIDER: 'openai', ANTHROPIC_API_KEY: 'a' }).provider).toBe('anthropic')
  })

  it('takes flags over env and strips trailing slashes', () => {
    const s = resolveModelSettings(
      { provider: 'openai-compatible', model: 'qwen', baseUrl: 'http://127.0.0.1:8080/v1/' },
      { CORTEX_MODEL: 'other', CORTEX_BASE_URL: 'http://127.0.0.1:9/v1', CORTEX_API_KEY: 'k' }
    )
    expect(s).toEqual({ provider: 'openai-compatible', modelId: 'qwen', baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'k' })
    expect(resolveModelSettings({ provider: 'openai-compatible' }, { CORTEX_MODEL: 'llama', CORTEX_BASE_URL: 'http://h:1/v1' }))
      .toEqual({ provider: 'openai-compatible', modelId: 'llama', baseUrl: 'http://h:1/v1' })
  })

  it('allows base URL overrides for the hosted providers', () => {
    expect(resolveModelSettings({ provider: 'anthropic', baseUrl: 'http://127.0.0.1:5/v1' }, { ANTHROPIC_API_KEY: 'a' }).baseUrl).toBe('http://127.0.0.1:5/v1')
    expect(resolveModelSettings({ provider: 'openai' }, { OPENAI_API_KEY: 'o', OPENAI_BASE_URL: 'http://127.0.0.1:6/v1' }).baseUrl).toBe('http://127.0.0.1:6/v1')
  })

  it('never sends CORTEX_API_KEY to a hosted provider', () => {
    const e = configError(() => resolveModelSettings({ provider: 'openai' }, { CORTEX_API_KEY: 'local' }))
    expect(e.message).toContain('OPENAI_API_KEY')
  })

  it('names the variable for a missing key', () => {
    expect(configError(() => resolveModelSettings({ provider: 'anthropic' }, {})).message).toContain('ANTHROPIC_API_KEY')
    expect(configError(() => resolveModelSettings({ provider: 'openai' }, { OPENAI_API_KEY: '  ' })).message).toContain('OPENAI_API_KEY')
  })

  it('names --model for openai-compatible without a model', () => {
    const e = configError(() => resolveModelSettings({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' }, {}))
    expect(e.message).toContain('--model')
    expect(e.message).toContain('CORTEX_MODEL')
  })

  it('names --base-url (suggesting Ollama) for openai-compatible without a base URL', () => {
    const e = configError(() => resolveModelSettings({ provider: 'openai-compatible', model: 'm' }, {}))
    expect(e.message).toContain('--base-url')
    expect(e.message).toContain('http://127.0.0.1:11434/v1')
  })

  it('rejects a bad base URL naming where it came from', () => {
    expect(configError(() => resolveModelSettings({ provider: 'openai-compatible', model: 'm', baseUrl: 'localhost:11434' }, {})).message).toContain('--base-url')
    expect(configError(() => resolveModelSettings({ provider: 'openai-compatible', model: 'm', baseUrl: 'not a url' }, {})).message).toContain('--base-url')
    expect(configError(() => resolveModelSettings({ provider: 'anthropic' }, { ANTHROPIC_API_KEY: 'a', ANTHROPIC_BASE_URL: 'ftp://x/v1' })).message).toContain('ANTHROPIC_BASE_URL')
  })

  it('rejects an unknown CORTEX_PROVIDER', () => {
    expect(configError(() => resolveModelSettings({}, { CORTEX_PROVIDER: 'gemini' })).message).toContain('CORTEX_PROVIDER')
  })
})
