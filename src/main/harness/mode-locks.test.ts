// The mode function and the lock state machine on their own: offeredTools per mode and lock, the
// refusal text of a call blocked by a lock, and ProposalState/decideProposal over event sequences
// (the same events a resume replays).
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../shared/events'
import { MUTATING_TOOLS, TOOL_NAMES, offeredTools } from '../../shared/modes'
import { TOOL_CATALOG } from '../tools/catalog'
import { makeContext } from '../tools/test-support'
import type { Guest } from '../guest/guest'
import { ProposalState, decideProposal } from './mode-locks'
import { dispatchToolCall } from './tool-dispatch'

const PLAN = { title: 'T', summary: 's', steps: ['one', 'two'], mermaid: 'flowchart TD\n A-->B' }
const doc = (stage: 'requirements' | 'design' | 'tasks', tasks?: string[]) => ({ stage, title: stage, markdown: `# ${stage}`, ...(tasks ? { tasks } : {}) })

/** Apply `events` to a fresh state, as a resume does. */
function replay(events: SessionEvent[]): ProposalState {
  const s = new ProposalState()
  for (const e of events) s.apply(e)
  return s
}

describe('offeredTools', () => {
  it('gives each mode its tools; Agent everything but spec; a lock removes every mutating tool', () => {
    expect(offeredTools('ask')).toEqual(['read_file', 'glob', 'grep'])
    expect(offeredTools('plan')).toEqual(['read_file', 'glob', 'grep', 'plan'])
    expect(offeredTools('spec')).toEqual(['read_file', 'glob', 'grep', 'spec'])
    expect(offeredTools('agent')).toEqual(TOOL_NAMES.filter((t) => t !== 'spec' && t !== 'goal_done'))
    expect(offeredTools('ask', null, true)).toEqual(['read_file', 'glob', 'grep', 'goal_done'])
    expect(offeredTools('agent', { kind: 'plan' }, true)).toContain('goal_done')
    expect(offeredTools('agent', { kind: 'plan' })).toEqual(['read_file', 'glob', 'grep', 'todo_read', 'plan'])
    for (const mode of ['ask', 'plan', 'spec'] as const) for (const t of MUTATING_TOOLS) expect(offeredTools(mode)).not.toContain(t)
  })

  it('dispatch refuses a mutating call under a lock, naming the lock', async () => {
    const { guest: _g, ...rest } = makeContext({} as Guest)
    const ctx = { ...rest, getGuest: () => Promise.reject(new Error('no guest')) }
    const r = await dispatchToolCall({ callId: 'c', name: 'bash', args: { command: 'true' } }, { mode: 'agent', lock: { kind: 'plan' } }, TOOL_CATALOG, ctx)
    expect(r).toMatchObject({ isError: true })
    expect(r.output).toMatch(/^Error: tool "bash" is blocked until the user accepts the plan or switches mode; it was not run\./)
  })
})

describe('plan lock', () => {
  it('locks only a plan published in Plan mode; a mode switch releases it', () => {
    const s = new ProposalState()
    expect(s.onPlanPublished('agent')).toEqual([])
    expect(s.onPlanPublished('plan')).toEqual([{ type: 'lock_changed', lock: { kind: 'plan' } }])
    expect(s.onModeSwitch()).toEqual([])
    s.apply({ type: 'lock_changed', lock: { kind: 'plan' } })
    expect(s.onModeSwitch()).toEqual([{ type: 'lock_changed', lock: null }])
  })

  it('refuses a decision when no plan awaits one, and after it was decided', () => {
    expect(() => decideProposal(new ProposalState(), { type: 'accept_plan' })).toThrow(/no plan awaits a decision/)
    const s = replay([{ type: 'plan_updated', plan: PLAN }, { type: 'lock_changed', lock: { kind: 'plan' } }])
    const d = decideProposal(s, { type: 'accept_plan' })
    for (const e of d.events) s.apply(e)
    expect(() => decideProposal(s, { type: 'reject_plan', feedback: 'x' })).toThrowError(expect.objectContaining({ code: 'invalid_input' }))
  })
})

describe('spec flow', () => {
  it('drafts in order and resumes where the events left it', () => {
    const events: SessionEvent[] = []
    const step = (e: SessionEvent[]) => {
      events.push(...e)
      return replay(events)
    }
    let s = new ProposalState()
    expect(s.nextSpecStage()).toBe('requirements')
    s = step(s.onSpecDrafted(doc('requirements')))
    expect(s.lock).toEqual({ kind: 'spec', stage: 'requirements' })
    s = step(decideProposal(s, { type: 'reject_spec', feedback: 'more' }).events)
    expect(s.nextSpecStage()).toBe('requirements')
    expect(() => decideProposal(s, { type: 'accept_spec' })).toThrow(/no spec document awaits/)
    s = step(s.onSpecDrafted(doc('requirements')))
    s = step(decideProposal(s, { type: 'accept_spec' }).events)
    expect(s.nextSpecStage()).toBe('design')
    s = step(s.onSpecDrafted(doc('design')))
    s = step(decideProposal(s, { type: 'accept_spec' }).events)
    expect(s.nextSpecStage()).toBe('tasks')
    s = step(s.onSpecDrafted(doc('tasks', ['a', 'b'])))
    const final = decideProposal(s, { type: 'accept_spec' })
    expect(final.events.slice(2)).toEqual([
      { type: 'mode_changed', mode: 'agent' },
      { type: 'todos_updated', todos: [{ content: 'a', status: 'pending' }, { content: 'b', status: 'pending' }] }
    ])
    expect(final.message).toMatch(/## Requirements: requirements[\s\S]*## Design: design[\s\S]*## Tasks: tasks/)
    s = step(final.events)
    // a finished spec starts over
    expect(s.nextSpecStage()).toBe('requirements')
    expect(s.lock).toBeNull()
  })
})
