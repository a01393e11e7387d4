// `/goal` flags read with shell-word rules (issue 23 item 3): a quoted check loses its quotes.
import { describe, expect, it } from 'vitest'
import { parseGoalArgs } from './goal-args'

describe('parseGoalArgs', () => {
  it('reads a quoted --check as one command without its quotes, with flags before or after it', () => {
    expect(parseGoalArgs('make X --turns 4 --check "grep -q reached GOAL.txt"')).toEqual({ ok: true, op: { type: 'set_goal', text: 'make X', turnBudget: 4, check: 'grep -q reached GOAL.txt' } })
    expect(parseGoalArgs("make X --check 'test -f a b' --tokens 900")).toEqual({ ok: true, op: { type: 'set_goal', text: 'make X', tokenBudget: 900, check: 'test -f a b' } })
    expect(parseGoalArgs('"make X" --turns 2')).toEqual({ ok: true, op: { type: 'set_goal', text: 'make X', turnBudget: 2 } })
  })
  it('keeps an unquoted check (and a command line starting with a quoted word) as typed', () => {
    expect(parseGoalArgs('fix it --check npm test -- --run')).toEqual({ ok: true, op: { type: 'set_goal', text: 'fix it', check: 'npm test -- --run' } })
    expect(parseGoalArgs('fix it --check "a b" && c')).toEqual({ ok: true, op: { type: 'set_goal', text: 'fix it', check: '"a b" && c' } })
    expect(parseGoalArgs("don't crash --turns 3")).toEqual({ ok: true, op: { type: 'set_goal', text: "don't crash", turnBudget: 3 } })
  })
  it('says what is wrong', () => {
    expect(parseGoalArgs('x --check "grep -q')).toEqual({ ok: false, message: '/goal: the --check command has an unterminated quote' })
    expect(parseGoalArgs('x --turns zero').ok).toBe(false)
    expect(parseGoalArgs('--turns 3').ok).toBe(false)
  })
})
