import { describe, expect, it } from 'vitest'
import type { SpawnResult } from '../../shared/guest-protocol'
import { cleanOutput, formatBashResult } from './bash-format'
import { MAX_RESULT_CHARS } from './limits'

function result(over: Partial<SpawnResult>): SpawnResult {
  return { exitCode: 0, signal: null, timedOut: false, killed: false, stdout: '', stderr: '', totalBytes: 0, truncatedBytes: 0, durationMs: 5, ...over }
}

describe('cleanOutput', () => {
  it('strips ANSI and collapses carriage-return progress', () => {
    expect(cleanOutput('\u001b[31mred\u001b[0m\n')).toBe('red')
    expect(cleanOutput('10%\r50%\r100%\ndone\r\n')).toBe('100%\ndone')
  })
})

describe('formatBashResult', () => {
  it('gives exit code and both streams', () => {
    const out = formatBashResult(result({ exitCode: 3, stdout: 'o\n', stderr: 'e\n' }), 1000)
    expect(out).toMatch(/^exit_code: 3$/m)
    expect(out).toMatch(/stdout:\no/)
    expect(out).toMatch(/stderr:\ne/)
    expect(out).not.toMatch(/timed_out/)
  })
  it('marks a timeout', () => {
    const out = formatBashResult(result({ exitCode: null, signal: 'SIGTERM', timedOut: true }), 1500)
    expect(out).toMatch(/timed_out: true \(killed after 1500 ms/)
  })
  it('caps large output head+tail and says how much was dropped', () => {
    const big = `HEAD${'x'.repeat(200_000)}TAIL`
    const out = formatBashResult(result({ stdout: big, totalBytes: big.length, truncatedBytes: 7 }), 1000)
    expect(out.length).toBeLessThanOrEqual(MAX_RESULT_CHARS)
    expect(out).toContain('HEAD')
    expect(out).toContain('TAIL')
    expect(out).toMatch(/7 bytes were dropped/)
    expect(out).toMatch(/\d+ characters were dropped/)
  })
})
