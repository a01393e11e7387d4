// The approval reducer of the renderer: a card per request, resolved in place; rule-decided calls
// as notes carrying the rule's pattern; the session's policy.
import { describe, expect, it } from 'vitest'
import { applyEvent, emptyView } from '../../store/reduce-event'
import { waitingApprovals } from './approvals-view'

describe('approval events in the session view', () => {
  it('adds a waiting card, resolves it in place, notes rule decisions and tracks the policy', () => {
    let v = emptyView('s')
    v = applyEvent(v, { type: 'session_opened', repo: '/r', mode: 'agent', approvalPolicy: 'changes' }, 1)
    expect(v.approvalPolicy).toBe('changes')
    v = applyEvent(v, { type: 'approval_requested', turnId: 't', requestId: 'r1', callId: 'c1', tool: 'bash', args: { command: 'npm test' }, suggestedRule: 'npm test *' }, 2)
    expect(waitingApprovals(v.items).map((a) => a.requestId)).toEqual(['r1'])
    v = applyEvent(v, {
      type: 'approval_resolved', turnId: 't', requestId: 'r1', callId: 'c1', outcome: 'allowed', decision: 'allow_always',
      rule: { id: 'x1', tool: 'bash', kind: 'allow', pattern: 'npm test *', createdAt: 0 }
    }, 3)
    expect(waitingApprovals(v.items)).toEqual([])
    expect(v.items.at(-1)).toMatchObject({ kind: 'approval', status: 'allowed', decision: 'allow_always', storedRule: 'npm test *' })
    v = applyEvent(v, { type: 'approval_resolved', turnId: 't', callId: 'c2', outcome: 'allowed', ruleId: 'x1', rule: { id: 'x1', tool: 'bash', kind: 'allow', pattern: 'npm test *', createdAt: 0 } }, 4)
    expect(v.items.at(-1)).toMatchObject({ kind: 'approval_rule', outcome: 'allowed', rule: 'npm test *' })
    v = applyEvent(v, { type: 'approval_requested', turnId: 't', requestId: 'r2', callId: 'c3', tool: 'bash', args: { command: 'curl x' }, escalation: 'network' }, 5)
    v = applyEvent(v, { type: 'approval_resolved', turnId: 't', requestId: 'r2', callId: 'c3', outcome: 'cancelled' }, 6)
    expect(v.items.at(-1)).toMatchObject({ kind: 'approval', status: 'cancelled', escalation: 'network' })
    // withdrawn by a mode switch: no longer waiting, and the card says why
    v = applyEvent(v, { type: 'approval_requested', turnId: 't', requestId: 'r4', callId: 'c5', tool: 'write_file', args: { path: 'x' } }, 6)
    v = applyEvent(v, { type: 'approval_resolved', turnId: 't', requestId: 'r4', callId: 'c5', outcome: 'withdrawn', reason: 'the user switched to plan mode; the call was not run' }, 6)
    expect(waitingApprovals(v.items)).toEqual([])
    expect(v.items.at(-1)).toMatchObject({ kind: 'approval', status: 'withdrawn', answer: 'the user switched to plan mode; the call was not run' })
    v = applyEvent(v, { type: 'approval_policy_changed', policy: 'never' }, 7)
    expect(v.approvalPolicy).toBe('never')
    // a card left waiting (a crashed process) is closed when the turn ends
    v = applyEvent(v, { type: 'approval_requested', turnId: 't', requestId: 'r3', callId: 'c4', tool: 'bash', args: { command: 'ls' } }, 8)
    v = applyEvent(v, { type: 'turn_ended', turnId: 't', reason: 'error' }, 9)
    expect(waitingApprovals(v.items)).toEqual([])
    expect(v.items.find((i) => i.kind === 'approval' && i.requestId === 'r3')).toMatchObject({ status: 'cancelled' })
  })
})
