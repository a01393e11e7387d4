// The view of the plan/spec lock: lock_changed sets and clears it, spec_updated keeps the latest
// spec document, and replaying a session's events (a reload) shows the same lock.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../../shared/events'
import { applyEvent, emptyView } from './reduce-event'

const reduce = (events: SessionEvent[]) => events.reduce((v, e, i) => applyEvent(v, e, i + 1), emptyView('s'))

describe('lock in the session view', () => {
  it('follows lock_changed and spec_updated', () => {
    const spec = { stage: 'design' as const, title: 'Design', markdown: '# d' }
    const locked = reduce([
      { type: 'mode_changed', mode: 'spec' },
      { type: 'spec_updated', spec },
      { type: 'lock_changed', lock: { kind: 'spec', stage: 'design' } }
    ])
    expect(locked.lock).toEqual({ kind: 'spec', stage: 'design' })
    expect(locked.spec).toEqual(spec)
    const released = applyEvent(locked, { type: 'lock_changed', lock: null }, 9)
    expect(released.lock).toBeNull()
    expect(released.spec).toEqual(spec)
    expect(applyEvent(released, { type: 'proposal_decided', kind: 'spec', stage: 'design', decision: 'accepted' }, 10)).toBe(released)
  })
})
