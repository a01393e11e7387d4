/** fileTextFromReadResult: numbered read_file output back to file text. */
import { describe, expect, it } from 'vitest'
import { fileTextFromReadResult } from './file-text'

describe('fileTextFromReadResult', () => {
  it('removes line numbers and the trailing note', () => {
    const result = '     1\t# Demo\n     2\t\n     3\tHello\n\n(README.md: end of file, all 3 lines shown.)'
    expect(fileTextFromReadResult(result)).toBe('# Demo\n\nHello\n')
  })
  it('keeps text that is not numbered', () => {
    expect(fileTextFromReadResult('Error: no such file')).toBe('Error: no such file')
  })
})
