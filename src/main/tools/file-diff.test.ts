// The real diff of a file change (issue 23 item 5): file line numbers, the whole resulting line, bounds.
import { describe, expect, it } from 'vitest'
import { fileDiffRows } from '../../shared/file-diff'
import { DIFF_MAX_LINES, fileDiff } from './file-diff'

describe('fileDiff', () => {
  it('shows the resulting line at its real line number', () => {
    const before = 'a\nb\nc\nd\nvar s = 1000; // one second\nf\n'
    const after = before.replace('var s = 1000;', 'var s = 2000;')
    const d = fileDiff('ms.js', before, after)
    expect(d.hunks).toHaveLength(1)
    expect(fileDiffRows(d)).toEqual([
      { kind: 'hunk', text: '@@ -2,5 +2,5 @@' },
      { kind: 'context', text: 'b', oldLine: 2, newLine: 2 },
      { kind: 'context', text: 'c', oldLine: 3, newLine: 3 },
      { kind: 'context', text: 'd', oldLine: 4, newLine: 4 },
      { kind: 'del', text: 'var s = 1000; // one second', oldLine: 5 },
      { kind: 'add', text: 'var s = 2000; // one second', newLine: 5 },
      { kind: 'context', text: 'f', oldLine: 6, newLine: 6 }
    ])
  })
  it('marks a created file and bounds the kept lines', () => {
    const text = Array.from({ length: DIFF_MAX_LINES + 50 }, (_, i) => `line ${i}`).join('\n') + '\n'
    const d = fileDiff('big.txt', null, text)
    expect(d.created).toBe(true)
    expect(d.hunks[0]!.lines).toHaveLength(DIFF_MAX_LINES)
    expect(d.omittedLines).toBe(50)
    expect(fileDiffRows(d).at(-1)).toEqual({ kind: 'hunk', text: '… 50 more lines' })
  })
})
