// Terminal rendering of approval events for `cortex run`: the exact call, the escalation named,
// how it was resolved; model-supplied text is made terminal-safe. When the terminal prompt asks
// (approvalsAsked), the request is left to it.
import { describe, expect, it } from 'vitest'
import { renderEvents } from '../../test/support/cli-render'
import type { SessionEvent } from '../shared/events'

describe('approval rendering', () => {
  it('shows the waiting call, the escalation and the resolution', () => {
    const { err } = renderEvents([
      { type: 'approval_requested', turnId: 't', requestId: 'r1', callId: 'c1', tool: 'bash', args: { command: 'npm test\u001b]52;c;eA==\u0007' }, reason: 'approval policy commands', suggestedRule: 'npm test *' },
      { type: 'approval_resolved', turnId: 't', requestId: 'r1', callId: 'c1', outcome: 'denied', decision: 'deny', reason: 'not now' },
      { type: 'approval_requested', turnId: 't', requestId: 'r2', callId: 'c2', tool: 'bash', args: { command: 'curl x', escalate: 'network' }, escalation: 'network' },
      { type: 'approval_resolved', turnId: 't', callId: 'c3', outcome: 'allowed', ruleId: 'abc' }
    ])
    expect(err).toContain('⏸ waiting for your approval: bash(command: "npm test')
    expect(err).not.toContain('\u001b')
    expect(err).toContain('Always would store: npm test *')
    expect(err).toContain('denied (deny): not now')
    expect(err).toContain('escalation: needs the network')
    expect(err).toContain('allowed by rule abc')
  })

  it('prints no request when the terminal prompt asks it (approvalsAsked), still the resolution', () => {
    const req: SessionEvent = { type: 'approval_requested', turnId: 't', requestId: 'r1', callId: 'c1', tool: 'bash', args: { command: 'npm test' }, reason: 'approval policy commands' }
    const { err } = renderEvents([req, { type: 'approval_resolved', turnId: 't', requestId: 'r1', callId: 'c1', outcome: 'allowed', decision: 'allow_once' }], { approvalsAsked: true })
    expect(err).not.toContain('npm test')
    expect(err).not.toContain('approval policy commands')
    expect(err).toContain('allowed (allow once)')
    expect(renderEvents([req]).err).toContain('npm test')
  })
})
