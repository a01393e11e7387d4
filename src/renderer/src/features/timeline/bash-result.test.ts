import { describe, expect, it } from 'vitest'
import { bashSummary, parseBashResult } from './bash-result'

describe('parseBashResult', () => {
  it('splits the fields, the two streams and the cut note', () => {
    const r = parseBashResult('exit_code: 3\ncwd: src (later calls start here)\nduration_ms: 120\nstdout:\nout 1\nout 2\nstderr:\nboom\nnote: the command printed 9 bytes; …')
    expect(r).toEqual({ exitCode: 3, durationMs: 120, notes: ['cwd: src (later calls start here)'], stdout: 'out 1\nout 2', stderr: 'boom', cut: 'note: the command printed 9 bytes; …' })
    expect(bashSummary(r!)).toBe('exit 3 · 120 ms')
  })

  it('reads empty streams and a missing exit code; other text is not a bash result', () => {
    expect(parseBashResult('exit_code: none\nsignal: SIGKILL\nduration_ms: 2500\nstdout: (empty)\nstderr: (empty)')).toEqual({ exitCode: null, durationMs: 2500, notes: ['signal: SIGKILL'], stdout: '', stderr: '' })
    expect(parseBashResult('Replaced 1 occurrence')).toBeNull()
  })
})
