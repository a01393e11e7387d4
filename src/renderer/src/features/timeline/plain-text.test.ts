/** Tool rows show output without escape fragments, even mid-stream. */
import { describe, expect, it } from 'vitest'
import { plainText } from './plain-text'

describe('plainText', () => {
  it('removes colour sequences', () => {
    expect(plainText('\x1b[32mok\x1b[0m done')).toBe('ok done')
  })
  it('removes a sequence cut off at the end of a streamed chunk', () => {
    expect(plainText('building \x1b[3')).toBe('building ')
    expect(plainText('building \x1b')).toBe('building ')
    expect(plainText('title \x1b]0;my ti')).toBe('title ')
  })
  it('keeps what a terminal finally shows on a carriage-return progress line', () => {
    expect(plainText('10%\r50%\r100%\nnext\r\n')).toBe('100%\nnext\n')
  })
  it('leaves plain text alone', () => {
    expect(plainText('a\nb')).toBe('a\nb')
  })
})
