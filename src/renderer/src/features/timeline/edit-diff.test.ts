/** edit_file diffs: single and multi edits, context lines, the line cap. */
import { describe, expect, it } from 'vitest'
import { DIFF_MAX_LINES, editDiff } from './edit-diff'

describe('editDiff', () => {
  it('diffs old_string against new_string line by line', () => {
    const lines = editDiff({ path: 'a', old_string: 'one\ntwo\nthree', new_string: 'one\nTWO\nthree' })
    expect(lines).toEqual([
      { kind: 'context', text: 'one', oldLine: 1, newLine: 1 },
      { kind: 'del', text: 'two', oldLine: 2 },
      { kind: 'add', text: 'TWO', newLine: 2 },
      { kind: 'context', text: 'three', oldLine: 3, newLine: 3 }
    ])
  })

  it("numbers lines with the file's line numbers once the result says where the edit landed", () => {
    const args = { path: 'a', old_string: 'x = 1\ny = 2\n', new_string: 'x = 1\ny = 3\nz = 4\n' }
    const lines = editDiff(args, 'Replaced 1 occurrence at line 143 in a.py.\nThe edited region now reads:\n…')
    expect(lines.map((l) => [l.kind, l.oldLine, l.newLine])).toEqual([
      ['context', 143, 143],
      ['del', 144, undefined],
      ['add', undefined, 144],
      ['add', undefined, 145]
    ])
  })

  it('reads one start line per edit of a multi-edit result', () => {
    const result = 'Applied 2 edits to a.txt: (1) 1 occurrence at line 7; (2) 1 occurrence at lines 20-22.'
    const lines = editDiff({ path: 'a', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd' }] }, result)
    expect(lines.filter((l) => l.kind === 'del').map((l) => l.oldLine)).toEqual([7, 20])
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
