// The CLI renderer never forwards terminal control sequences from model text, tool results,
// arguments, todos, plans or errors to the user's terminal.
import { describe, expect, it } from 'vitest'
import { renderEvents } from '../../test/support/cli-render'
import type { SessionEvent } from '../shared/events'
import { summarizeArgs, terminalSafe } from './terminal-safe'

const OSC52 = '\u001b]52;c;cHduZWQ=\u0007'
const HOSTILE = `a${OSC52}b\u001b[2J\u001b]0;title\u001b\\c\rd\u009b31me\u0008f`

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

describe('CLI renderer', () => {
  it('terminalSafe removes escape sequences and shows other control characters as U+FFFD', () => {
    expect(terminalSafe(HOSTILE)).toBe('abcde\ufffdf')
    expect(terminalSafe('line 1\r\nline 2\n\tok')).toBe('line 1\nline 2\n\tok')
    expect(terminalSafe('\u001b')).toBe('\ufffd')
    expect(summarizeArgs({ path: `x\u009b2Jy\u0085z` })).toBe('path: "xy\ufffdz"')
  })

  it('prints no control character from any event text, with or without colour', () => {
    const events: SessionEvent[] = [
      { type: 'session_opened', repo: `/r${OSC52}`, mode: 'agent', sandbox: 'workspace-write' },
      { type: 'text_delta', turnId: 't', text: `hello ${HOSTILE}` },
      { type: 'text_delta', turnId: 't', text: '\u001b' },
      { type: 'text_delta', turnId: 't', text: ']52;c;eA==\u0007\n' },
      { type: 'tool_call_started', turnId: 't', callId: 'c', name: `read_file${OSC52}`, args: { path: `p\u009b2J` } },
      { type: 'tool_call_finished', turnId: 't', callId: 'c', name: 'read_file', isError: false, result: `     1\t${HOSTILE}\n` },
      { type: 'todos_updated', todos: [{ content: HOSTILE, status: 'pending' }] },
      { type: 'plan_updated', plan: { title: HOSTILE, summary: '', steps: [HOSTILE], mermaid: 'flowchart TD\n A' } },
      { type: 'guest_status', state: 'ready', detail: HOSTILE },
      { type: 'error', code: 'internal', message: HOSTILE }
    ]
    for (const color of [false, true]) {
      const { out, err } = renderEvents(events, { color })
      // colour adds SGR sequences of our own: remove exactly those before checking
      // eslint-disable-next-line no-control-regex
      const own = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, '')
      expect(own(out)).not.toMatch(CONTROL)
      expect(own(err)).not.toMatch(CONTROL)
      expect(out).not.toContain(']52;c;cHduZWQ=\u0007')
      expect(out).toContain('hello abcde\ufffdf')
      expect(out).toContain('  [ ] abcde\ufffdf')
    }
  })
})
