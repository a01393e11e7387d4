/** The lines a file tool call touched, as the viewer reveals them. */
import { describe, expect, it } from 'vitest'
import { touchedLines } from './touched-lines'

describe('touchedLines', () => {
  it('takes a read_file window from the numbered lines it showed', () => {
    const result = '  5500\trow 5500\n  5501\trow 5501\n  5502\trow 5502\n\n(big.txt: showing lines 5500–5502 of 6000.)'
    expect(touchedLines('read_file', { path: 'big.txt', offset: 5500, limit: 3 }, result)).toEqual({ start: 5500, end: 5502 })
  })
  it('takes an edit from "at line N" and the span of new_string', () => {
    const result = 'Replaced 1 occurrence at line 12 in src/a.ts.'
    expect(touchedLines('edit_file', { new_string: 'a\nb\nc\n' }, result)).toEqual({ start: 12, end: 14 })
    expect(touchedLines('edit_file', { new_string: 'one line' }, result)).toEqual({ start: 12, end: 12 })
    expect(touchedLines('edit_file', { new_string: 'x' }, 'old_string not found')).toBeUndefined()
  })
  it('covers all of what write_file wrote', () => {
    expect(touchedLines('write_file', { content: '1\n2\n3\n' }, 'Wrote 3 lines')).toEqual({ start: 1, end: 3 })
  })
  it('knows nothing of other tools', () => {
    expect(touchedLines('bash', { command: 'ls' }, 'a')).toBeUndefined()
  })
})
