// The results Stop leaves: a running call's bounded partial output, not-run results for the rest.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../shared/events'
import { NOT_RUN_AFTER_ERROR_RESULT, NOT_RUN_RESULT, OutputTail, STOPPED_RESULT, closeUnstarted, interruptedResult } from './interrupted'

describe('OutputTail', () => {
  it('keeps everything while short, in arrival order', () => {
    const t = new OutputTail(10)
    t.add('abc')
    t.add('def')
    expect(t.text()).toBe('abcdef')
  })

  it('keeps the first and last `edge` characters of a long output and says how much was left out', () => {
    const t = new OutputTail(5)
    for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') t.add(c)
    expect(t.text()).toBe('ABCDE\n[… 16 characters left out …]\nVWXYZ')
    const big = new OutputTail(4)
    big.add('x'.repeat(1_000_000) + 'END!')
    expect(big.text()).toBe('xxxx\n[… 999996 characters left out …]\nEND!')
  })

  it('an interrupted result names the interruption and carries the output, or says there was none', () => {
    const t = new OutputTail()
    expect(interruptedResult(t)).toBe(`${STOPPED_RESULT} It produced no output.`)
    t.add('partial line\n')
    expect(interruptedResult(t)).toBe(`${STOPPED_RESULT} Output so far:\npartial line\n`)
  })
})

describe('closeUnstarted', () => {
  it('records one error result per call, worded by why the step was cut', () => {
    const out: SessionEvent[] = []
    closeUnstarted('t', (e) => out.push(e), [{ callId: 'a', name: 'bash', args: {} }, { callId: 'b', name: 'glob', args: {} }], 'stopped')
    closeUnstarted('t', (e) => out.push(e), [{ callId: 'c', name: 'bash', args: {} }], 'error')
    expect(out).toEqual([
      { type: 'tool_call_finished', turnId: 't', callId: 'a', name: 'bash', isError: true, result: NOT_RUN_RESULT },
      { type: 'tool_call_finished', turnId: 't', callId: 'b', name: 'glob', isError: true, result: NOT_RUN_RESULT },
      { type: 'tool_call_finished', turnId: 't', callId: 'c', name: 'bash', isError: true, result: NOT_RUN_AFTER_ERROR_RESULT }
    ])
  })
})
