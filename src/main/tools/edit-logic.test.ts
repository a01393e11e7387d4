import { describe, expect, it } from 'vitest'
import { applyEdit, applyEdits, findOccurrences, toCrlf } from './edit-logic'
import { ToolError } from './tool'

function editError(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError)
    return (err as Error).message
  }
  throw new Error('expected a ToolError')
}

describe('applyEdit', () => {
  it('replaces a unique occurrence', () => {
    const r = applyEdit('a = 1\nb = 2\n', 'b = 2', 'b = 3', false, 'f.py')
    expect(r.content).toBe('a = 1\nb = 3\n')
    expect(r.replacements).toBe(1)
    expect(r.lines).toEqual([2])
  })
  it('refuses several matches without replace_all, naming count and lines', () => {
    const msg = editError(() => applyEdit('a = 1\nx = 1\nb = 2\nx = 1\n', 'x = 1', 'x = 9', false, 'f.py'))
    expect(msg).toMatch(/2 times/)
    expect(msg).toMatch(/lines 2, 4/)
  })
  it('replaces every occurrence with replace_all', () => {
    const r = applyEdit('a = 1\nx = 1\nb = 2\nx = 1\n', 'x = 1', 'x = 9', true, 'f.py')
    expect(r.content).toBe('a = 1\nx = 9\nb = 2\nx = 9\n')
    expect(r.replacements).toBe(2)
    expect(r.lines).toEqual([2, 4])
  })
  it('inserts the replacement literally ($& $1 $$ stay as typed)', () => {
    const r = applyEdit('p = 1\n', 'p = 1', "q = $& $1 $$ $' $`", false, 'f')
    expect(r.content).toBe("q = $& $1 $$ $' $`\n")
  })
  it('matches LF text in a CRLF file and keeps CRLF', () => {
    const r = applyEdit('alpha\r\nbeta\r\ngamma\r\n', 'alpha\nbeta', 'ALPHA\nBETA', false, 'f')
    expect(r.content).toBe('ALPHA\r\nBETA\r\ngamma\r\n')
    expect(r.adaptedLineEndings).toBe('crlf')
  })
  it('matches CRLF text in an LF file', () => {
    const r = applyEdit('alpha\nbeta\n', 'alpha\r\nbeta', 'A\r\nB', false, 'f')
    expect(r.content).toBe('A\nB\n')
  })
  it('rejects no-op and empty edits', () => {
    expect(editError(() => applyEdit('abc', 'b', 'b', false, 'f'))).toMatch(/identical/)
    expect(editError(() => applyEdit('abc', '', 'x', false, 'f'))).toMatch(/empty/)
  })
  it('reports a missing match with the closest region and its line numbers', () => {
    const file = ['import os', '', 'def f():', '    return 1', '', 'def g():', '    return 2', ''].join('\n')
    const msg = editError(() => applyEdit(file, 'def g():\n  return 2', 'x', false, 'm.py'))
    expect(msg).toMatch(/not found in m\.py/)
    expect(msg).toMatch(/closest region is lines 6–7/)
    expect(msg).toContain('     6\tdef g():\n     7\t    return 2')
    const none = editError(() => applyEdit('abc\n', 'zzz qqq', 'x', false, 'm.py'))
    expect(none).toMatch(/not found/)
    expect(none).toMatch(/No similar region/)
  })
  it('finds the closest region in a large file through anchors', () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `const v${i} = compute(${i})`)
    const msg = editError(() => applyEdit(lines.join('\n'), 'const v31337 = compute(31337 )\nconst v31338 = compute(31338)', 'x', false, 'big.ts'))
    expect(msg).toMatch(/closest region is lines 31338–31339/)
  })
})

describe('applyEdits', () => {
  it('applies edits in order, each on the previous result', () => {
    const r = applyEdits('a b c\n', [{ old_string: 'a', new_string: 'x' }, { old_string: 'x b', new_string: 'y' }], 'f')
    expect(r.content).toBe('y c\n')
    expect(r.outcomes).toHaveLength(2)
  })
  it('is all or nothing and names the failing edit', () => {
    const msg = editError(() => applyEdits('a b c\n', [{ old_string: 'a', new_string: 'x' }, { old_string: 'zz', new_string: 'y' }], 'f'))
    expect(msg).toMatch(/edit 2 of 2 failed, so none of the edits was applied/)
  })
  it('refuses edits that cancel out', () => {
    expect(editError(() => applyEdits('a\n', [{ old_string: 'a', new_string: 'b' }, { old_string: 'b', new_string: 'a' }], 'f'))).toMatch(/unchanged/)
  })
})

describe('findOccurrences / toCrlf', () => {
  it('finds non-overlapping occurrences', () => {
    expect(findOccurrences('aaaa', 'aa')).toEqual([0, 2])
    expect(findOccurrences('abc', '')).toEqual([])
  })
  it('converts bare and CRLF newlines to CRLF once', () => {
    expect(toCrlf('a\nb\r\nc')).toBe('a\r\nb\r\nc')
  })
})
