/** edit_file diffs: single and multi edits, context lines, the line cap. */
import { describe, expect, it } from 'vitest'
import { DIFF_MAX_LINES, editDiff } from './edit-diff'

describe('editDiff', () => {
  it('diffs old_string against new_string line by line', () => {
    const lines = editDiff({ path: 'a', old_string: 'one\ntwo\nthree', new_string: 'one\nTWO\nthree' })
    expect(lines).toEqual([
      { kind: 'context', text: 'one' },
      { kind: 'del', text: 'two' },
      { kind: 'add', text: 'TWO' },
      { kind: 'context', text: 'three' }
    ])
  })

  it('labels each of several edits', () => {
    const lines = editDiff({ path: 'a', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: '' }] })
    expect(lines.filter((l) => l.kind === 'hunk').map((l) => l.text)).toEqual(['edit 1 of 2', 'edit 2 of 2'])
    expect(lines.filter((l) => l.kind === 'add').map((l) => l.text)).toEqual(['b', ''])
  })

  it('is empty without an edit and capped when huge', () => {
    expect(editDiff({ path: 'a' })).toEqual([])
    expect(editDiff('nope')).toEqual([])
    const big = Array.from({ length: 600 }, (_, i) => `l${i}`).join('\n')
    const lines = editDiff({ old_string: big, new_string: big.toUpperCase() })
    expect(lines).toHaveLength(DIFF_MAX_LINES + 1)
    expect(lines.at(-1)?.text).toMatch(/more lines/)
  })
})
