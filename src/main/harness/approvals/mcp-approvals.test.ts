// The approval gate and MCP tools: `never` runs them, `commands` and `changes` ask; an Always answer
// stores a rule for that server's tool (no pattern) that covers its later calls and no other tool;
// a deny rule by tool name refuses it without asking.
import { describe, expect, it } from 'vitest'
import type { ApprovalPolicy } from '../../../shared/approvals'
import type { SessionEvent } from '../../../shared/events'
import { tempDir } from '../../../../test/support/temp-dir'
import { ApprovalGate, policyAsks } from './approval-gate'
import { ApprovalRulesStore } from './rules-store'

function gate(policy: ApprovalPolicy) {
  const events: SessionEvent[] = []
  const rules = new ApprovalRulesStore(tempDir('cortex-mcp-approvals-'))
  const g = new ApprovalGate({
    repo: '/repo', rules, getPolicy: () => policy, getSandbox: () => 'workspace-write', emit: (e) => events.push(e),
    startOneOffGuest: () => Promise.reject(new Error('no one-off guests here'))
  })
  return { g, events, rules }
}
const call = (name: string, id = 'c1') => ({ callId: id, name, args: { message: 'hi' } })

describe('approvals for MCP tools', () => {
  it('asks under commands and changes, never under never', () => {
    expect(policyAsks('never', 'mcp__s__t')).toBe(false)
    expect(policyAsks('commands', 'mcp__s__t')).toBe(true)
    expect(policyAsks('changes', 'mcp__s__t')).toBe(true)
    expect(policyAsks('commands', 'write_file')).toBe(false)
  })

  it('an Always stores a rule for that server and tool only, which covers its later calls', async () => {
    const { g, events } = gate('commands')
    const signal = new AbortController().signal
    const first = g.check(call('mcp__s__t'), 'turn', signal)
    const req = events.find((e) => e.type === 'approval_requested')
    expect(req).toMatchObject({ tool: 'mcp__s__t' })
    g.decide({ requestId: (req as { requestId: string }).requestId, decision: 'allow_always' })
    expect(await first).toEqual({ run: true })
    expect(await g.check(call('mcp__s__t', 'c2'), 'turn', signal)).toEqual({ run: true })
    expect(events.filter((e) => e.type === 'approval_requested')).toHaveLength(1)
    // another tool of the same server still asks
    void g.check(call('mcp__s__other', 'c3'), 'turn', signal)
    expect(events.filter((e) => e.type === 'approval_requested')).toHaveLength(2)
  })

  it('a deny rule by tool name refuses the call without asking, even under never', async () => {
    const { g, events, rules } = gate('never')
    rules.add('/repo', { tool: 'mcp__s__t', kind: 'deny' })
    const verdict = await g.check(call('mcp__s__t'), 'turn', new AbortController().signal)
    expect(verdict).toMatchObject({ run: false, output: expect.stringContaining("denied by the user's rule") })
    expect(events.some((e) => e.type === 'approval_requested')).toBe(false)
  })
})
