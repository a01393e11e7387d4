import { describe, expect, it } from 'vitest'
import { completeSlash, parseSlash } from './slash-commands'

describe('slash commands', () => {
  it('parses /goal with its budgets and check into set_goal', () => {
    expect(parseSlash('/goal make the tests pass --turns 8', null)).toEqual({ kind: 'op', op: { type: 'set_goal', text: 'make the tests pass', turnBudget: 8 } })
    expect(parseSlash('/goal fix it --tokens 5000 --check npm test -- --run', null)).toEqual({
      kind: 'op', op: { type: 'set_goal', text: 'fix it', tokenBudget: 5000, check: 'npm test -- --run' }
    })
    expect(parseSlash('/goal pause', null)).toEqual({ kind: 'op', op: { type: 'pause_goal' } })
    expect(parseSlash('/goal confirm', null)).toEqual({ kind: 'op', op: { type: 'confirm_goal' } })
    expect(parseSlash('/goal x --turns zero', null).kind).toBe('error')
  })

  it('acts on the lock in force for /accept and /reject', () => {
    expect(parseSlash('/accept', { kind: 'plan' })).toEqual({ kind: 'op', op: { type: 'accept_plan' } })
    expect(parseSlash('/reject use smaller steps', { kind: 'spec', stage: 'design' })).toEqual({ kind: 'op', op: { type: 'reject_spec', feedback: 'use smaller steps' } })
    expect(parseSlash('/accept', null)).toEqual({ kind: 'error', message: 'nothing awaits a decision' })
  })

  it('maps /model to the model list and /model ID to set_model', () => {
    expect(parseSlash('/model', null)).toEqual({ kind: 'local', name: 'models' })
    expect(parseSlash('/model gpt-5-mini', null)).toEqual({ kind: 'op', op: { type: 'set_model', model: 'gpt-5-mini' } })
  })

  it('maps modes, policies, sandbox and local commands', () => {
    expect(parseSlash('/mode plan', null)).toEqual({ kind: 'op', op: { type: 'set_mode', mode: 'plan' } })
    expect(parseSlash('/ask changes', null)).toEqual({ kind: 'op', op: { type: 'set_approval_policy', policy: 'changes' } })
    expect(parseSlash('/sandbox read-only', null)).toEqual({ kind: 'op', op: { type: 'set_sandbox', policy: 'read-only' } })
    expect(parseSlash('/resume 2026-abc', null)).toEqual({ kind: 'resume', id: '2026-abc' })
    expect(parseSlash('/compact', null)).toEqual({ kind: 'op', op: { type: 'compact' } })
    expect(parseSlash('/compact the parser work', null)).toEqual({ kind: 'op', op: { type: 'compact', focus: 'the parser work' } })
    expect(parseSlash('/sessions', null)).toEqual({ kind: 'local', name: 'sessions' })
    expect(parseSlash('/nope', null).kind).toBe('error')
  })

  it('takes /image PATH (the rest of the line, spaces included) for the shell to attach', () => {
    expect(parseSlash('/image /home/me/My Pictures/shot 1.png', null)).toEqual({ kind: 'image', path: '/home/me/My Pictures/shot 1.png' })
    expect(parseSlash('/image', null)).toEqual({ kind: 'error', message: 'usage: /image PATH (a PNG, JPEG, GIF or WebP file; it goes with your next message)' })
  })

  it('completes command names by prefix', () => {
    expect(completeSlash('/re').map((c) => c.name)).toEqual(['/reject', '/resume'])
  })
})

describe('/thinking', () => {
  it('sets the level, or says how', () => {
    expect(parseSlash('/thinking high', null)).toEqual({ kind: 'op', op: { type: 'set_thinking', level: 'high' } })
    expect(parseSlash('/thinking lots', null)).toEqual({ kind: 'error', message: 'usage: /thinking off|low|medium|high' })
  })
})
