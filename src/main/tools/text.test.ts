import { describe, expect, it } from 'vitest'
import { countLines, decodeUtf8Strict, encodeUtf8, lineNumberAt, numberLine, thousands } from './text'
import { looksBinary } from './encoding'

describe('text helpers', () => {
  it('counts lines like wc -l plus an unterminated last line', () => {
    expect(countLines('')).toBe(0)
    expect(countLines('a')).toBe(1)
    expect(countLines('a\n')).toBe(1)
    expect(countLines('a\nb')).toBe(2)
    expect(countLines('a\r\nb\r\n')).toBe(2)
  })
  it('finds the line of an offset', () => {
    const t = 'a\nbb\nccc\n'
    expect(lineNumberAt(t, 0)).toBe(1)
    expect(lineNumberAt(t, 2)).toBe(2)
    expect(lineNumberAt(t, 5)).toBe(3)
  })
  it('numbers lines like cat -n', () => {
    expect(numberLine(7, 'x')).toBe('     7\tx')
    expect(numberLine(1234567, 'x')).toBe('1234567\tx')
  })
  it('detects a NUL byte as binary', () => {
    expect(looksBinary(new Uint8Array([65, 0, 66]))).toBe(true)
    expect(looksBinary(encodeUtf8('plain text'))).toBe(false)
  })
  it('decodes strictly and keeps a BOM for a byte-exact round trip', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0a])
    const text = decodeUtf8Strict(bytes)
    expect(text).toBe('\ufeffa\n')
    expect([...encodeUtf8(text ?? '')]).toEqual([...bytes])
    expect(decodeUtf8Strict(new Uint8Array([0xff, 0xfe, 0x41]))).toBeNull()
  })

  it('writes thousands separators as en-US does', () => {
    for (const n of [0, 7, 999, 1000, 30_000, 123_456, 1_234_567, 17_179_869_184, -1234]) expect(thousands(n)).toBe(n.toLocaleString('en-US'))
  })
})
