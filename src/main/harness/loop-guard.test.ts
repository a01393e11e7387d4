// The loop guard's counting: identical failing calls warn at the 3rd and stop at the 5th; changing
// results, successes, other arguments and key order behave as the module header says.
import { describe, expect, it } from 'vitest'
import { CortexError } from '../../shared/errors'
import { LOOP_STOP_AT, LOOP_WARN_AT, LoopGuard } from './loop-guard'
import { formatBashResult } from '../tools/bash-format'

const FAIL = 'exit_code: 1\nstderr:\ncat: missing.txt: No such file or directory'

describe('LoopGuard', () => {
  it('warns from the 3rd identical failure and stops at the 5th with loop_detected', () => {
    const g = new LoopGuard()
    const verdicts = Array.from({ length: LOOP_STOP_AT }, () => g.record('bash', { command: 'cat missing.txt' }, false, FAIL))
    expect(verdicts.slice(0, LOOP_WARN_AT - 1)).toEqual([{}, {}])
    expect(verdicts[LOOP_WARN_AT - 1]?.note).toMatch(/failed the same way 3 times/)
    expect(verdicts[LOOP_WARN_AT - 1]?.stop).toBeUndefined()
    expect(verdicts[3]?.note).toMatch(/4 times/)
    const last = verdicts[LOOP_STOP_AT - 1]
    expect(last?.stop).toBeInstanceOf(CortexError)
    expect(last?.stop?.code).toBe('loop_detected')
    expect(last?.stop?.message).toContain('bash {"command":"cat missing.txt"} 5 times')
  })

  it('does not count polling: the same call whose failing result changes', () => {
    const g = new LoopGuard()
    for (let i = 0; i < 10; i++) expect(g.record('bash', { command: 'check' }, false, `exit_code: 1\nstdout:\n${i} jobs left`)).toEqual({})
  })

  it('does not count successes, and a success resets the streak', () => {
    const g = new LoopGuard()
    for (let i = 0; i < 10; i++) expect(g.record('read_file', { path: 'a' }, false, 'same text')).toEqual({})
    g.record('glob', { pattern: 'x' }, true, 'Error: bad')
    g.record('glob', { pattern: 'x' }, true, 'Error: bad')
    g.record('glob', { pattern: 'x' }, false, 'a.txt')
    expect(g.record('glob', { pattern: 'x' }, true, 'Error: bad')).toEqual({})
    expect(g.record('glob', { pattern: 'x' }, true, 'Error: bad')).toEqual({})
    expect(g.record('glob', { pattern: 'x' }, true, 'Error: bad').note).toBeDefined()
  })

  it('counts calls by name and arguments by value, key order ignored', () => {
    const g = new LoopGuard()
    g.record('edit_file', { path: 'a', old_string: 'x' }, true, 'Error: not found')
    g.record('edit_file', { old_string: 'x', path: 'a' }, true, 'Error: not found')
    expect(g.record('edit_file', { path: 'a', old_string: 'x' }, true, 'Error: not found').note).toBeDefined()
    expect(g.record('edit_file', { path: 'b', old_string: 'x' }, true, 'Error: not found')).toEqual({})
    expect(g.record('write_file', { path: 'a', old_string: 'x' }, true, 'Error: not found')).toEqual({})
  })

  it('treats bash exit code 0 as success and a missing exit code (killed) as failure', () => {
    const g = new LoopGuard()
    for (let i = 0; i < 6; i++) expect(g.record('bash', { command: 'true' }, false, 'exit_code: 0')).toEqual({})
    for (let i = 0; i < 2; i++) g.record('bash', { command: 'x' }, false, 'exit_code: none\nsignal: SIGKILL')
    expect(g.record('bash', { command: 'x' }, false, 'exit_code: none\nsignal: SIGKILL').note).toBeDefined()
  })
})

describe('LoopGuard on real bash results', () => {
  /** What the bash tool returns for `cat x` failing after `ms` milliseconds (its own formatter). */
  const res = (ms: number, stderr = 'cat: x: No such file or directory\n'): string => formatBashResult({
    exitCode: 1, signal: null, timedOut: false, killed: false, stdout: '', stderr,
    totalBytes: stderr.length, truncatedBytes: 0, durationMs: ms
  }, 120_000)

  it('ignores the duration line when comparing failures', () => {
    expect(res(3)).not.toBe(res(7)) // the results really differ, in their duration only
    const g = new LoopGuard()
    g.record('bash', { command: 'cat x' }, false, res(3))
    g.record('bash', { command: 'cat x' }, false, res(7))
    expect(g.record('bash', { command: 'cat x' }, false, res(12)).note).toBeDefined()
  })

  it('still tells failures with different output apart', () => {
    const g = new LoopGuard()
    for (let i = 0; i < 5; i++) expect(g.record('bash', { command: 'cat x' }, false, res(3, `cat: x: attempt ${i}\n`))).toEqual({})
  })
})
