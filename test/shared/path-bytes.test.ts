// The byte ↔ wire ↔ model conventions for file names (pure).
import { describe, expect, it } from 'vitest'
import { bytesToWire, hasEscapedBytes, hasModelEscapes, modelToWire, wireToBytes, wireToModel } from '../../src/shared/path-bytes'

const b = (...parts: (string | number[])[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'utf8')] : p)))

describe('path-bytes', () => {
  const cases: [string, Uint8Array][] = [
    ['ascii', b('src/a.ts')],
    ['utf-8', b('café/日本語 😀.txt')],
    ['latin-1', b('caf', [0xe9], '.txt')],
    ['lone continuation and 0xff', b([0x80, 0xff], 'x', [0xc3])],
    ['encoded surrogate (invalid UTF-8)', b([0xed, 0xb2, 0x80])],
    ['overlong', b([0xc0, 0xaf])],
    ['control and backslash', b('a\nb\\x41', [0xfe])]
  ]
  it.each(cases)('round-trips %s byte-exact through wire and model forms', (_name, bytes) => {
    const wire = bytesToWire(bytes)
    expect(Buffer.from(wireToBytes(wire)).equals(Buffer.from(bytes))).toBe(true)
    // JSON (the agent protocol) keeps lone surrogates.
    expect(JSON.parse(JSON.stringify(wire))).toBe(wire)
    const model = wireToModel(wire)
    expect(model).not.toMatch(/[\ud800-\udfff]/u)
    expect(Buffer.from(wireToBytes(modelToWire(model))).equals(Buffer.from(bytes))).toBe(true)
  })
  it('shows valid names unchanged and escapes only what is needed', () => {
    expect(wireToModel('dir\\name é.txt')).toBe('dir\\name é.txt')
    expect(wireToModel(bytesToWire(b('caf', [0xe9], '.txt')))).toBe('caf\\xe9.txt')
    expect(wireToModel(bytesToWire(b('a\\b', [0xff])))).toBe('a\\\\b\\xff')
    expect(wireToModel('line\nbreak')).toBe('line\\x0abreak')
    expect(hasEscapedBytes(bytesToWire(b([0xff])))).toBe(true)
    // A valid astral character's low surrogate is not an escaped byte.
    expect(hasEscapedBytes('\u{10080}')).toBe(false)
    expect(hasModelEscapes('caf\\xe9')).toBe(true)
    expect(hasModelEscapes('caf\\x')).toBe(false)
  })
  it('turns escaped bytes that form UTF-8 back into the character', () => {
    expect(modelToWire('caf\\xc3\\xa9')).toBe('café')
  })
})
