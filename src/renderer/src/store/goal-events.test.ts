// The reducer keeps the goal for the composer's chip and notes in the timeline a new goal and each
// time it stops running (met, paused, blocked, budget spent, cleared), not each progress update.
import { describe, expect, it } from 'vitest'
import type { GoalUpdated } from '../../../shared/goal'
import { applyEvent, emptyView } from './reduce-event'

const goal = (over: Partial<GoalUpdated>): GoalUpdated => ({ type: 'goal_updated', goal: { text: 'make the tests pass' }, state: 'active', turnsUsed: 0, turnBudget: 8, tokensUsed: 0, tokenBudget: null, ...over })

describe('goal_updated in the view', () => {
  it('sets the chip on every update and notes only a new goal and its stops', () => {
    let view = applyEvent(emptyView('s'), goal({}), 1)
    view = applyEvent(view, goal({ turnsUsed: 1, reason: 'turn 1 ended without the goal met' }), 2)
    view = applyEvent(view, goal({ state: 'paused', turnsUsed: 1, reason: 'stopped by the user' }), 3)
    view = applyEvent(view, goal({ state: 'met', turnsUsed: 2, reason: 'npm test passes' }), 4)
    expect(view.goal).toMatchObject({ state: 'met', turnsUsed: 2 })
    expect(view.items).toEqual([
      { kind: 'notice', id: 'e1', text: 'goal set: make the tests pass (8 turns)', warn: false },
      { kind: 'notice', id: 'e3', text: 'goal paused · 1/8 — stopped by the user', warn: true },
      { kind: 'notice', id: 'e4', text: 'goal met · 2/8 — npm test passes', warn: false }
    ])
  })
})
