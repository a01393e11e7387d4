// The goal state machine on its own: budgets, met, blocked after 3 identical blockers, Stop, user
// operations, and the pause a resumed session starts with.
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../shared/events'
import { goalLabel, type GoalUpdated } from '../../shared/goal'
import { GoalMachine, continuationMessage, pausedAtResume } from './goal'

/** A machine whose emitted snapshots are applied back, as the session does through its log. */
function machine(): { m: GoalMachine; emit(u?: GoalUpdated): GoalUpdated | undefined } {
  const m = new GoalMachine()
  return { m, emit: (u) => (u && m.apply(u), u) }
}

describe('GoalMachine', () => {
  it('set_goal starts the first turn when idle; a check that never passes ends budget_spent after exactly the budget', () => {
    const { m, emit } = machine()
    const first = m.submit({ type: 'set_goal', text: 'make tests pass', turnBudget: 3, check: 'false' }, true)
    emit(first.update)
    expect(first.update).toMatchObject({ state: 'active', turnsUsed: 0, turnBudget: 3, tokenBudget: null, goal: { text: 'make tests pass', check: 'false' } })
    expect(first.next).toContain('Goal: make tests pass')
    const states: string[] = []
    let turns = 0
    for (let next: string | undefined = first.next; next; ) {
      m.turnStarted(`t${++turns}`)
      const end = m.turnEnded(`t${turns}`, 'completed', 100, false)
      states.push(emit(end.update)!.state)
      next = end.next
    }
    expect(turns).toBe(3)
    expect(states).toEqual(['active', 'active', 'budget_spent'])
    expect(m.current).toMatchObject({ turnsUsed: 3, tokensUsed: 300 })
    expect(goalLabel(m.current)).toBe('Goal · 3/3 · budget spent')
  })

  it('a met claim ends the goal met at that turn; the token budget ends it too', () => {
    const { m, emit } = machine()
    emit(m.submit({ type: 'set_goal', text: 'g', turnBudget: 8 }, true).update)
    m.turnStarted('a')
    emit(m.turnEnded('a', 'completed', 10, false).update)
    m.turnStarted('b')
    m.claimed({ kind: 'met', evidence: 'done.txt exists' })
    const end = m.turnEnded('b', 'completed', 10, false)
    expect(end.next).toBeUndefined()
    expect(emit(end.update)).toMatchObject({ state: 'met', turnsUsed: 2, reason: 'done.txt exists' })
    expect(goalLabel(m.current)).toBe('Goal · 2/8 · met')

    const t = machine()
    t.emit(t.m.submit({ type: 'set_goal', text: 'g', tokenBudget: 150 }, true).update)
    t.m.turnStarted('a')
    expect(t.emit(t.m.turnEnded('a', 'completed', 100, false).update)?.state).toBe('active')
    t.m.turnStarted('b')
    expect(t.emit(t.m.turnEnded('b', 'completed', 100, false).update)).toMatchObject({ state: 'budget_spent', tokensUsed: 200 })
  })

  it('the same blocker on 3 consecutive turns ends it blocked; a different one or none resets the count', () => {
    const { m, emit } = machine()
    emit(m.submit({ type: 'set_goal', text: 'g', turnBudget: 20 }, true).update)
    const turn = (id: string, blocked?: string): GoalUpdated => {
      m.turnStarted(id)
      if (blocked) m.claimed({ kind: 'blocked', reason: blocked })
      return emit(m.turnEnded(id, 'completed', 0, false).update)!
    }
    turn('1', 'No network access.')
    turn('2', 'no  network access')
    turn('3') // progress: resets
    turn('4', 'no network access')
    turn('5', 'missing API key')
    turn('6', 'No network access')
    turn('7', 'no network access')
    expect(m.current?.state).toBe('active')
    expect(turn('8', 'NO NETWORK ACCESS!')).toMatchObject({ state: 'blocked', turnsUsed: 8 })
  })

  it('Stop pauses at once; a failed turn pauses; resume restarts only a paused goal with budget left', () => {
    const { m, emit } = machine()
    emit(m.submit({ type: 'set_goal', text: 'g', turnBudget: 2 }, true).update)
    m.turnStarted('a')
    expect(emit(m.stop())?.state).toBe('paused')
    const end = m.turnEnded('a', 'stopped', 5, false)
    expect(end.next).toBeUndefined()
    expect(emit(end.update)).toMatchObject({ state: 'paused', turnsUsed: 1, tokensUsed: 5 })
    expect(m.turnStarted('user-turn'), 'a turn while paused does not count').toBeUndefined()
    expect(m.turnEnded('user-turn', 'completed', 50, false)).toEqual({})
    const resumed = m.submit({ type: 'resume_goal' }, true)
    expect(emit(resumed.update)?.state).toBe('active')
    expect(resumed.next).toContain('turn 2 of 2')
    m.turnStarted('b')
    expect(emit(m.turnEnded('b', 'error', 0, false).update)).toMatchObject({ state: 'paused', turnsUsed: 2 })
    expect(() => m.submit({ type: 'resume_goal' }, true)).toThrow(/budget/)
    expect(emit(m.submit({ type: 'set_goal_budget', turnBudget: 4 }, true).update)).toMatchObject({ state: 'paused', turnBudget: 4 })
    m.turnStarted('running')
    const late = m.submit({ type: 'resume_goal' }, false)
    expect(late.next, 'a running turn: the goal continues after it').toBeUndefined()
    emit(late.update)
    expect(m.turnEnded('running', 'completed', 0, false).next).toContain('Continue working toward the goal: g')
  })

  it('pause needs an active goal, resume a paused one; clear ends it; a new set_goal forgets an old turn', () => {
    const { m, emit } = machine()
    expect(() => m.submit({ type: 'pause_goal' }, true)).toThrow(/no goal/)
    emit(m.submit({ type: 'set_goal', text: 'g' }, false).update)
    expect(() => m.submit({ type: 'resume_goal' }, true)).toThrow(/only a paused goal/)
    m.turnStarted('old')
    emit(m.submit({ type: 'set_goal', text: 'h' }, false).update)
    const after = m.turnEnded('old', 'completed', 10, false)
    expect(after.update, 'the old goal\'s turn does not count toward the new goal').toBeUndefined()
    expect(after.next).toMatch(/^Goal: h/)
    expect(emit(m.submit({ type: 'pause_goal' }, true).update)?.state).toBe('paused')
    expect(emit(m.submit({ type: 'clear_goal' }, true).update)?.state).toBe('cleared')
    expect(goalLabel(m.current)).toBeNull()
    expect(() => m.submit({ type: 'resume_goal' }, true)).toThrow(/no goal/)
  })

  it('a pending plan or spec pauses the goal instead of running another turn', () => {
    const { m, emit } = machine()
    emit(m.submit({ type: 'set_goal', text: 'g' }, true).update)
    m.turnStarted('a')
    const end = m.turnEnded('a', 'completed', 0, true)
    expect(end.next).toBeUndefined()
    expect(emit(end.update)?.state).toBe('paused')
  })
})

describe('pausedAtResume and continuationMessage', () => {
  const active: GoalUpdated = { type: 'goal_updated', goal: { text: 'g', check: 'npm test' }, state: 'active', turnsUsed: 2, turnBudget: 8, tokensUsed: 1200, tokenBudget: 5000 }
  it('pauses a goal the log left active, and only that', () => {
    const log: SessionEvent[] = [{ type: 'mode_changed', mode: 'agent' }, active]
    expect(pausedAtResume(log)).toMatchObject({ state: 'paused', turnsUsed: 2, reason: expect.stringContaining('resumed') })
    expect(pausedAtResume([active, { ...active, state: 'met' }])).toBeUndefined()
    expect(pausedAtResume([])).toBeUndefined()
  })
  it('says what the goal is, the progress and how to finish', () => {
    const text = continuationMessage(active)
    expect(text).toContain('Continue working toward the goal: g')
    expect(text).toContain('turn 3 of 8; 1200 of 5000 tokens used')
    expect(text).toContain('`npm test`')
    expect(text).toContain('goal_done')
  })

  it('a met claim with changed check files ends needs_confirmation; only confirm_goal makes it met, resume keeps working', () => {
    const { m, emit } = machine()
    emit(m.submit({ type: 'set_goal', text: 'g', check: 'bash check.sh' }, true, { 'check.sh': 'sha256:aa' }).update)
    expect(m.current?.goal.checkFiles).toEqual({ 'check.sh': 'sha256:aa' })
    m.turnStarted('a')
    m.claimed({ kind: 'unconfirmed', evidence: 'passes', changed: ['check.sh'] })
    const end = m.turnEnded('a', 'completed', 10, false)
    emit(end.update)
    expect(end.next).toBeUndefined()
    expect(m.current).toMatchObject({ state: 'needs_confirmation', turnsUsed: 1, reason: expect.stringMatching(/check\.sh changed since the goal was set/) })
    expect(goalLabel(m.current)).toBe('Goal · 1/20 · needs confirmation')
    expect(() => m.submit({ type: 'pause_goal' }, true)).toThrow(/not active/)
    const resumed = m.submit({ type: 'resume_goal' }, true)
    expect(resumed.update?.state).toBe('active')
    expect(resumed.update?.goal.checkFiles).toEqual({ 'check.sh': 'sha256:aa' }) // the baseline stays the user's
    emit({ ...resumed.update!, state: 'needs_confirmation' })
    expect(emit(m.submit({ type: 'confirm_goal' }, true).update)).toMatchObject({ state: 'met', reason: expect.stringMatching(/^confirmed by the user/) })
    expect(() => m.submit({ type: 'confirm_goal' }, true)).toThrow(/only a goal that needs confirmation/)
  })
})
