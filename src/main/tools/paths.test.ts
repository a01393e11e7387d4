import { describe, expect, it } from 'vitest'
import { displayPath, isInside, joinWorkspacePath, relativeWire } from './paths'
import { ToolError } from './tool'

describe('isInside', () => {
  it('accepts the root and paths under it, not siblings sharing a prefix', () => {
    expect(isInside('/repo', '/repo')).toBe(true)
    expect(isInside('/repo', '/repo/a/b')).toBe(true)
    expect(isInside('/repo', '/repo-other/a')).toBe(false)
    expect(isInside('/repo', '/')).toBe(false)
    expect(isInside('/', '/anything')).toBe(true)
  })
})

describe('joinWorkspacePath', () => {
  it('joins relative paths and normalises', () => {
    expect(joinWorkspacePath('/repo', 'src/a.ts')).toBe('/repo/src/a.ts')
    expect(joinWorkspacePath('/repo', './src/../b/')).toBe('/repo/b')
    expect(joinWorkspacePath('/repo', '.')).toBe('/repo')
  })
  it('keeps absolute paths (the realpath check decides) and lets .. escape lexically', () => {
    expect(joinWorkspacePath('/repo', '/etc/passwd')).toBe('/etc/passwd')
    expect(joinWorkspacePath('/repo', '../x')).toBe('/x')
  })
  it('rejects empty and NUL-containing paths', () => {
    expect(() => joinWorkspacePath('/repo', '  ')).toThrow(ToolError)
    expect(() => joinWorkspacePath('/repo', 'a\0b')).toThrow(ToolError)
  })
})

describe('displayPath', () => {
  it('is relative to the root', () => {
    expect(displayPath('/repo', '/repo')).toBe('.')
    expect(displayPath('/repo', '/repo/src/a.ts')).toBe('src/a.ts')
  })
})

describe('displayPath and relativeWire with names that are not UTF-8', () => {
  it('shows escaped bytes as \\xHH and keeps the wire form for rg', () => {
    const real = '/repo/d\udcee/caf\udce9.txt'
    expect(displayPath('/repo', real)).toBe('d\\xee/caf\\xe9.txt')
    expect(relativeWire('/repo', real)).toBe('d\udcee/caf\udce9.txt')
    expect(relativeWire('/repo', '/repo')).toBe('.')
  })
})
