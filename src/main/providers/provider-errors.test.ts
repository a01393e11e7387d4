import { describe, expect, it } from 'vitest'
import { APICallError, LoadAPIKeyError } from 'ai'
import { CortexError } from '../../shared/errors'
import type { ModelSettings } from './model-settings'
import { classifyProviderError, isAbortError } from './provider-errors'

const local: ModelSettings = { provider: 'openai-compatible', modelId: 'qwen', baseUrl: 'http://127.0.0.1:11434/v1' }
const anthropic: ModelSettings = { provider: 'anthropic', modelId: 'claude-x', baseUrl: 'https://api.anthropic.com/v1', apiKey: 'k' }

describe('classifyProviderError', () => {
  it('passes CortexErrors through', () => {
    const e = new CortexError('busy', 'x')
    expect(classifyProviderError(e, local)).toBe(e)
  })

  it('maps a raw fetch failure with a system cause to provider_unreachable', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' })
    const e = classifyProviderError(new TypeError('fetch failed', { cause }), local)
    expect(e.code).toBe('provider_unreachable')
    expect(e.message).toBe('Cannot reach openai-compatible at http://127.0.0.1:11434/v1 (ECONNREFUSED): check --base-url (or CORTEX_BASE_URL) and that the server is running')
    expect(e.cause).toBeInstanceOf(TypeError)
  })

  it('maps DNS failure on a remote host to provider_unreachable mentioning the network', () => {
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND api.anthropic.com'), { code: 'ENOTFOUND' })
    const err = new APICallError({ message: 'Cannot connect to API: getaddrinfo ENOTFOUND', url: 'https://api.anthropic.com/v1/messages', requestBodyValues: {}, cause, isRetryable: true })
    const e = classifyProviderError(err, anthropic)
    expect(e.code).toBe('provider_unreachable')
    expect(e.message).toContain('ENOTFOUND')
    expect(e.message).toContain('ANTHROPIC_BASE_URL')
    expect(e.message).toContain('network')
  })

  it('maps a streamText timeout to provider_unreachable', () => {
    const timeout = new DOMException('The operation timed out.', 'TimeoutError')
    expect(classifyProviderError(timeout, local).code).toBe('provider_unreachable')
    expect(isAbortError(timeout)).toBe(false)
  })

  it('hints at the model for HTTP 404 and the key for 403', () => {
    const notFound = new APICallError({ message: 'model "qwen" not found, try pulling it first', url: 'u', requestBodyValues: {}, statusCode: 404 })
    const e = classifyProviderError(notFound, local)
    expect(e.code).toBe('provider_error')
    expect(e.message).toBe('openai-compatible returned HTTP 404: model "qwen" not found, try pulling it first — check --model (or CORTEX_MODEL) ("qwen") and --base-url (or CORTEX_BASE_URL)')
    const forbidden = new APICallError({ message: 'Forbidden', url: 'u', requestBodyValues: {}, statusCode: 403, responseBody: 'no access\nto this' })
    const f = classifyProviderError(forbidden, anthropic)
    expect(f.message).toContain('no access to this')
    expect(f.message).toContain('ANTHROPIC_API_KEY')
    expect(f.message).not.toContain('\n')
  })

  it('maps LoadAPIKeyError to provider_config naming the key', () => {
    const e = classifyProviderError(new LoadAPIKeyError({ message: 'missing' }), anthropic)
    expect(e.code).toBe('provider_config')
    expect(e.message).toContain('ANTHROPIC_API_KEY')
  })

  it('keeps anything else as provider_error on one line', () => {
    const e = classifyProviderError(new Error('Type validation failed:\n  bad chunk'), local)
    expect(e.code).toBe('provider_error')
    expect(e.message).toBe('openai-compatible request failed: Type validation failed: bad chunk')
    expect(classifyProviderError('weird', local).message).toContain('weird')
  })
})

describe('isAbortError', () => {
  it('recognises AbortError and its wrappers', () => {
    expect(isAbortError(new DOMException('aborted', 'AbortError'))).toBe(true)
    expect(isAbortError(new Error('wrapped', { cause: new DOMException('aborted', 'AbortError') }))).toBe(true)
    expect(isAbortError(new Error('other'))).toBe(false)
    expect(isAbortError(undefined)).toBe(false)
  })
})
