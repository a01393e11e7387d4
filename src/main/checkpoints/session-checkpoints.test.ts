// Pure parts of checkpoints: which paths a file revert may touch, the history after a conversation
// rewind, and which turn a crash left unrecorded.
import { describe, expect, it } from 'vitest'
import { isRepoPath } from './session-checkpoints'
import { visibleHistory } from './rewind-history'
import { unrecordedLastTurn } from './checkpoint-refs'
import type { SessionEvent } from '../../shared/events'

describe('isRepoPath', () => {
  it('accepts plain relative paths and refuses escapes, absolute paths and .git', () => {
    for (const ok of ['a.txt', 'src/b.ts', '.gitignore', 'x/.git-keep']) expect(isRepoPath(ok), ok).toBe(true)
    for (const bad of [undefined, '', '/etc/passwd', '../x', 'a/../../b', 'a//b', './a', '.git/config', '.git']) expect(isRepoPath(bad), String(bad)).toBe(false)
  })
})

describe('visibleHistory', () => {
  const user = (turnId: string, text: string): SessionEvent => ({ type: 'user_message', turnId, text })
  it('drops a rewound turn and what followed it up to the revert; keeps what came after', () => {
    const events: SessionEvent[] = [
      user('t1', 'one'), { type: 'turn_ended', turnId: 't1', reason: 'completed' },
      user('t2', 'two'), { type: 'turn_ended', turnId: 't2', reason: 'completed' },
      { type: 'changes_reverted', revertId: 'r', turnId: 't2', scope: 'rewind', restored: [], deleted: [], skipped: [], conversation: true },
      user('t3', 'three')
    ]
    expect(visibleHistory(events).map((e) => (e.type === 'user_message' ? e.text : e.type))).toEqual(['one', 'turn_ended', 'three'])
  })
  it('is the same array without a conversation rewind', () => {
    const events: SessionEvent[] = [user('t1', 'one')]
    expect(visibleHistory(events)).toBe(events)
  })
})

describe('unrecordedLastTurn', () => {
  const started = (turnId: string): SessionEvent => ({ type: 'turn_started', turnId, mode: 'agent' })
  it('is the newest earlier turn without turn_changes; one whose end snapshot failed is not retried', () => {
    expect(unrecordedLastTurn([started('t1'), started('t2')], 't2')).toBe('t1')
    expect(unrecordedLastTurn([started('t1'), { type: 'turn_changes', turnId: 't1', files: [] }, started('t2')], 't2')).toBeUndefined()
    expect(unrecordedLastTurn([started('t1'), { type: 'checkpoint_failed', turnId: 't1', stage: 'after', reason: 'x' }, started('t2')], 't2')).toBeUndefined()
    // a turn whose `before` failed has no snapshot to close: still returned, and found to lack one
    expect(unrecordedLastTurn([started('t1'), { type: 'checkpoint_failed', turnId: 't1', stage: 'before', reason: 'x' }], '')).toBe('t1')
  })
})
