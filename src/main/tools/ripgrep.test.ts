import { describe, expect, it } from 'vitest'
import { dirPrefix, relocate, splitLines } from './ripgrep'

describe('ripgrep output helpers', () => {
  it('rewrites ./ paths to workspace-relative ones', () => {
    expect(relocate('./a.ts:1:x', dirPrefix('.'))).toBe('a.ts:1:x')
    expect(relocate('./a.ts-2-y', dirPrefix('src'))).toBe('src/a.ts-2-y')
    expect(relocate('--', dirPrefix('src'))).toBe('--')
  })
  it('splits lines without a trailing empty one', () => {
    expect(splitLines('')).toEqual([])
    expect(splitLines('a\nb\n')).toEqual(['a', 'b'])
  })
})
