// ModeWatch: the switches a dispatched call hears of, and when it may still run (ADR 0019 decision 6).
import { describe, expect, it } from 'vitest'
import type { Mode } from '../../shared/modes'
import { ModeWatch } from './mode-watch'

describe('ModeWatch', () => {
  it('a switch that withholds the tool refuses the call even after a switch back, and tells the listener once', () => {
    const watch = new ModeWatch()
    let mode: Mode = 'agent'
    const told: Mode[] = []
    const call = watch.watch('write_file', () => ({ mode }), (s) => told.push(s.mode))
    expect(call.refusal('its approval')).toBeUndefined()
    mode = 'plan'
    watch.switched({ mode, lock: null })
    mode = 'ask'
    watch.switched({ mode, lock: null })
    mode = 'agent'
    watch.switched({ mode, lock: null })
    expect(told).toEqual(['plan'])
    expect(call.refusal('its approval')).toBe(
      'the user switched to plan mode while this write_file call waited for its approval; it was not run. Tools available now: read_file, glob, grep, write_file, edit_file, bash, todo_read, todo_write, plan.'
    )
    call.close()
  })

  it('a switch that keeps the tool changes nothing; goal_done stays allowed while the goal is active', () => {
    const watch = new ModeWatch()
    const read = watch.watch('read_file', () => ({ mode: 'plan' }))
    const done = watch.watch('goal_done', () => ({ mode: 'plan', goalActive: true }))
    watch.switched({ mode: 'plan', lock: null })
    expect(read.refusal('the guest')).toBeUndefined()
    expect(done.refusal('the guest')).toBeUndefined()
  })

  it('a closed watch hears nothing more', () => {
    const watch = new ModeWatch()
    const told: Mode[] = []
    const call = watch.watch('bash', () => ({ mode: 'agent' }), (s) => told.push(s.mode))
    call.close()
    watch.switched({ mode: 'ask', lock: null })
    expect(told).toEqual([])
  })
})
