// Terminal rendering of the plan/spec lock for `cortex run`: the lock and the commands (and stdin
// operations) that answer it, a spec document with its Markdown made terminal-safe, the decision, and what a mode switch ended.
import { describe, expect, it } from 'vitest'
import { renderEvents } from '../../test/support/cli-render'

describe('lock rendering', () => {
  it('shows the lock with its operations, the spec document and the decision', () => {
    const { out, err } = renderEvents([
      { type: 'lock_changed', lock: { kind: 'plan' } },
      { type: 'proposal_decided', kind: 'plan', decision: 'rejected', feedback: 'no' },
      { type: 'lock_changed', lock: null },
      { type: 'spec_updated', spec: { stage: 'design', title: 'Design', markdown: '# D\u001b]0;owned\u0007' } },
      { type: 'lock_changed', lock: { kind: 'spec', stage: 'design' } }
    ])
    expect(err).toContain('Plan — locked until you accept\n  accept: cortex accept --resume s · reject: cortex reject --resume s --feedback "…" (with --input stream-json: {"type":"accept_plan"} or {"type":"reject_plan","feedback":"…"} on stdin)')
    expect(err).toContain('plan rejected')
    expect(err).toContain('Spec design — locked until you accept\n  accept: cortex accept --resume s')
    expect(err).toContain('{"type":"accept_spec"}')
    expect(out).toContain('Spec design: Design\n# D')
    expect(out).not.toContain('\u001b')
  })

  it('says what a switch to a mode without bash ended, and nothing for a switch that ended nothing (ADR 0019)', () => {
    const { err } = renderEvents([
      { type: 'mode_changed', mode: 'plan', endedProcesses: 2 },
      { type: 'mode_changed', mode: 'agent' },
      { type: 'mode_changed', mode: 'ask', endError: 'background processes could not be ended: gone' }
    ])
    expect(err).toBe('mode: plan (ended 2 background processes)\nmode: ask (background processes could not be ended: gone)\n')
  })
})
