// The session's record without Docker: a live session's events and the same log folded on resume
// end in the same state (seq, history, todos, lock, observers), and ephemeral events advance the
// seq without entering the history. The operation table covers every operation type.
import { describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../shared/events'
import { OperationSchema } from '../../shared/events'
import { SessionRecord } from './session-record'
import { OPERATIONS } from './session-operations'

const todo = (content: string) => ({ id: content, content, status: 'pending' as const })

const live: SessionEvent[] = [
  { type: 'user_message', turnId: 't1', text: 'plan the refactor' },
  { type: 'turn_started', turnId: 't1', mode: 'plan' },
  { type: 'text_delta', turnId: 't1', text: 'thinking' },
  { type: 'todos_updated', todos: [todo('a'), todo('b')] },
  { type: 'lock_changed', lock: { kind: 'plan' } },
  { type: 'turn_ended', turnId: 't1', reason: 'completed' }
] as SessionEvent[]

describe('SessionRecord', () => {
  it('folds live events and a resumed log to the same state', () => {
    const seenLive: string[] = []
    const rec = new SessionRecord([(e) => seenLive.push(e.type)])
    const persisted: EventEnvelope[] = []
    live.forEach((e, i) => {
      const { envelope, persist } = rec.next('s1', e, 1000 + i)
      if (persist) persisted.push(envelope)
    })
    expect(rec.seq).toBe(6)
    expect(rec.history.map((e) => e.type)).not.toContain('text_delta')
    expect(rec.history).toHaveLength(5)
    expect(persisted.map((e) => e.seq)).toEqual([1, 2, 4, 5, 6])
    expect(rec.todos.map((t) => t.content)).toEqual(['a', 'b'])
    expect(rec.proposals.lock).toEqual({ kind: 'plan' })

    const seenResumed: string[] = []
    const resumed = new SessionRecord([(e) => seenResumed.push(e.type)]).restore(persisted)
    expect(resumed.seq).toBe(6)
    expect(resumed.history).toEqual(rec.history)
    expect(resumed.persisted).toEqual(rec.persisted)
    expect(resumed.todos).toEqual(rec.todos)
    expect(resumed.proposals.lock).toEqual(rec.proposals.lock)
    expect(seenResumed).toEqual(seenLive)
    // the next event after a resume continues the seq
    expect(resumed.next('s1', { type: 'lock_changed', lock: null }, 2000).envelope.seq).toBe(7)
    expect(resumed.proposals.lock).toBeNull()
  })

  it('keeps its todos apart from what callers and events hold', () => {
    const rec = new SessionRecord()
    const mine = [todo('x')]
    rec.setTodos(mine)
    mine[0]!.content = 'changed by the caller'
    expect(rec.todos[0]!.content).toBe('x')
    const event = { type: 'todos_updated', todos: [todo('y')] } as SessionEvent
    rec.next('s1', event, 1)
    ;(event as Extract<SessionEvent, { type: 'todos_updated' }>).todos[0]!.content = 'changed in the event'
    expect(rec.todos[0]!.content).toBe('y')
  })
})

describe('OPERATIONS', () => {
  it('has a handler for every operation type the contract defines', () => {
    const types = OperationSchema.options.map((o) => o.shape.type.value).sort()
    expect(Object.keys(OPERATIONS).sort()).toEqual(types)
  })
})
