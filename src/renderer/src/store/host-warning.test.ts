// A host_exec_warning becomes one timeline row carrying its paths and message.
import { describe, expect, it } from 'vitest'
import { applyEvent, emptyView } from './reduce-event'

describe('host_exec_warning in the view', () => {
  it('becomes one timeline row with its paths', () => {
    const view = applyEvent(emptyView('s'), { type: 'host_exec_warning', paths: ['.vscode/tasks.json (added)'], message: 'm' }, 7)
    expect(view.items).toEqual([{ kind: 'host_warning', id: 'e7', paths: ['.vscode/tasks.json (added)'], message: 'm' }])
  })
})
