import { describe, expect, it } from 'vitest'
import { capHead, capHeadTail, formatBytes, truncateLine } from './limits'

describe('capHead', () => {
  it('returns short text unchanged', () => {
    expect(capHead('hello', 100)).toBe('hello')
  })
  it('caps long text within the limit and names the dropped count', () => {
    const text = 'x'.repeat(10_000)
    const out = capHead(text, 1_000)
    expect(out.length).toBeLessThanOrEqual(1_000)
    const kept = out.indexOf('\n[output truncated')
    expect(kept).toBeGreaterThan(0)
    const dropped = Number(/(\d+) more characters/.exec(out)?.[1])
    expect(kept + dropped).toBe(10_000)
  })
  it('does not split a surrogate pair', () => {
    const text = '😀'.repeat(1_000)
    const out = capHead(text, 301)
    const head = out.slice(0, out.indexOf('\n['))
    expect(head).toBe('😀'.repeat(head.length / 2))
  })
})

describe('capHeadTail', () => {
  it('keeps head and tail with a marker counting what was dropped', () => {
    const text = `START${'m'.repeat(5_000)}END`
    const { text: out, droppedChars } = capHeadTail(text, 500)
    expect(out.length).toBeLessThanOrEqual(500)
    expect(out.startsWith('START')).toBe(true)
    expect(out.endsWith('END')).toBe(true)
    expect(out).toContain(`${droppedChars} characters omitted`)
    const marker = `\n[… ${droppedChars} characters omitted …]\n`
    expect(out.length - marker.length + droppedChars).toBe(text.length)
  })
  it('leaves fitting text alone', () => {
    expect(capHeadTail('abc', 3)).toEqual({ text: 'abc', droppedChars: 0 })
  })
})

describe('truncateLine / formatBytes', () => {
  it('cuts long lines and names their length', () => {
    expect(truncateLine('abcdef', 3)).toBe('abc… [line truncated: 6 characters]')
    expect(truncateLine('abc', 3)).toBe('abc')
  })
  it('formats bytes', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(2048)).toBe('2.0 KB')
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MB')
  })
})
