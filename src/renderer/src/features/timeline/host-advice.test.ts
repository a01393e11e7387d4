import { describe, expect, it } from 'vitest'
import { appAdvice } from './host-advice'

describe('appAdvice', () => {
  it('names the Settings fields instead of command-line flags', () => {
    expect(appAdvice('Cannot reach openai at http://127.0.0.1:9/v1 (ECONNREFUSED): check --base-url (or OPENAI_BASE_URL) and that the server is running')).toBe(
      'Cannot reach openai at http://127.0.0.1:9/v1 (ECONNREFUSED): check the base URL in Settings (or OPENAI_BASE_URL where Cortex runs) and that the server is running'
    )
    expect(appAdvice('openai returned HTTP 404: no such model — check --model (or CORTEX_MODEL) ("x") and --base-url (or OPENAI_BASE_URL)')).not.toContain('--')
    expect(appAdvice('anthropic needs an API key: set ANTHROPIC_API_KEY')).toBe('anthropic needs an API key: set ANTHROPIC_API_KEY where Cortex runs (the desktop app keeps one in Settings)')
    expect(appAdvice('openai returned HTTP 401: bad key — check OPENAI_API_KEY')).toContain('OPENAI_API_KEY where Cortex runs')
  })
})
