/** The bounded terminal transcript, and the reducer keeping bash output across a reload or Stop. */
import { describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../../../shared/events'
import { reduceEnvelope, type SessionView } from '../../store/reduce-event'
import { TerminalLog } from './terminal-log'

function run(events: SessionEvent[]): SessionView {
  let views: Record<string, SessionView> = {}
  events.forEach((event, i) => {
    const envelope: EventEnvelope = { sessionId: 's', seq: i + 1, time: 0, event }
    views = reduceEnvelope(views, envelope)
  })
  const view = views.s
  if (!view) throw new Error('no view')
  return view
}

describe('TerminalLog', () => {
  it('hands out the text after an offset, across merged and separate chunks', () => {
    const log = new TerminalLog(100_000)
    log.append('abc')
    const first = log.since(0)
    expect(first).toEqual({ text: 'abc', dropped: 0, end: 3 })
    log.append('def')
    log.append('x'.repeat(20_000))
    log.append('tail')
    expect(log.since(first.end).text.startsWith('def')).toBe(true)
    expect(log.since(log.end - 4)).toEqual({ text: 'tail', dropped: 0, end: log.end })
    expect(log.since(log.end).text).toBe('')
  })

  it('keeps only the newest characters and reports what a slow reader lost', () => {
    const log = new TerminalLog(50_000)
    for (let i = 0; i < 1000; i++) log.append(`${String(i).padStart(4, '0')}${'.'.repeat(995)}\n`)
    expect(log.end).toBe(1_000_000)
    expect(log.size).toBeLessThanOrEqual(50_000 + 16 * 1024)
    expect(log.text().endsWith(`0999${'.'.repeat(995)}\n`)).toBe(true)
    const slice = log.since(0)
    expect(slice.dropped).toBe(1_000_000 - log.size)
    expect(slice.text).toBe(log.text())
  })

  it('keeps the tail of one chunk larger than the cap', () => {
    const log = new TerminalLog(10)
    log.append('0123456789abcdef')
    expect(log.text()).toBe('6789abcdef')
    expect(log.since(0)).toEqual({ text: '6789abcdef', dropped: 6, end: 16 })
  })
})

describe('bash output kept with the session', () => {
  const started: SessionEvent = { type: 'tool_call_started', turnId: 't', callId: 'b', name: 'bash', args: { command: 'make' } }

  it('a replayed call (no tool_output in the log) shows its kept output in the row and the terminal', () => {
    const v = run([started, { type: 'tool_call_finished', turnId: 't', callId: 'b', name: 'bash', isError: false, result: 'built', output: 'compiling\n\x1b[32mok\x1b[0m\n' }])
    expect(v.items[0]).toMatchObject({ output: 'compiling\n\x1b[32mok\x1b[0m\n', status: 'ok' })
    expect(v.terminal.text()).toContain('$ make')
    expect(v.terminal.text()).toContain('compiling\n')
  })

  it('a stopped call keeps its partial output after a reload', () => {
    const v = run([started, { type: 'tool_call_finished', turnId: 't', callId: 'b', name: 'bash', isError: true, result: 'Error: interrupted', output: 'step 1\n' }])
    expect(v.items[0]).toMatchObject({ output: 'step 1\n', status: 'error' })
    expect(v.terminal.text()).toContain('step 1\n')
  })

  it('a live call is not written twice when its finish carries the kept output', () => {
    const v = run([
      started,
      { type: 'tool_output', turnId: 't', callId: 'b', stream: 'stdout', chunk: 'once\n' },
      { type: 'tool_call_finished', turnId: 't', callId: 'b', name: 'bash', isError: false, result: 'once', output: 'once\n' }
    ])
    expect(v.terminal.text().split('once').length - 1).toBe(1)
    expect(v.terminalVersion).toBe(2)
  })
})
