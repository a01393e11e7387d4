// A host_exec_warning becomes one timeline row carrying its paths and message; a checkpoint_failed a warning notice.
import { describe, expect, it } from 'vitest'
import { applyEvent, emptyView } from './reduce-event'

describe('host_exec_warning in the view', () => {
  it('becomes one timeline row with its paths', () => {
    const view = applyEvent(emptyView('s'), { type: 'host_exec_warning', paths: ['.vscode/tasks.json (added)'], message: 'm' }, 7)
    expect(view.items).toEqual([{ kind: 'host_warning', id: 'e7', paths: ['.vscode/tasks.json (added)'], message: 'm' }])
  })
})

describe('checkpoint_failed in the view', () => {
  it('becomes one warning row saying the turn is not recorded, with the reason', () => {
    const view = applyEvent(emptyView('s'), { type: 'checkpoint_failed', turnId: 't', stage: 'after', reason: 'the snapshot at the end of the turn failed: x' }, 3)
    expect(view.items).toEqual([{ kind: 'notice', id: 'e3', warn: true, text: "this turn's changes were not recorded at its end (no review or undo of it): the snapshot at the end of the turn failed: x" }])
  })
  it('counts a turn_changes with more files than it lists', () => {
    const view = applyEvent(emptyView('s'), { type: 'turn_changes', turnId: 't', files: [{ path: 'a', status: 'added', additions: 0, deletions: 0 }], more: 59_999 }, 4)
    expect(view.turnChanges.t).toBe(60_000)
  })
})
