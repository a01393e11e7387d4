/**
 * Unit tests of the guest agent's head+tail output cap (lives here: guest-agent may import node:* only, not vitest).
 */
import { describe, expect, it } from 'vitest'
import { CappedOutput } from '../../guest-agent/output-cap'

describe('CappedOutput', () => {
  it('keeps everything under the cap', () => {
    const c = new CappedOutput(10)
    c.push(Buffer.from('abc'))
    c.push(Buffer.from('defg'))
    expect(c.text()).toBe('abcdefg')
    expect([c.total, c.dropped]).toEqual([7, 0])
  })

  it('keeps head and tail across many small chunks and counts the middle', () => {
    const c = new CappedOutput(8)
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') c.push(Buffer.from(ch))
    expect(c.total).toBe(26)
    expect(c.dropped).toBe(18)
    expect(c.text()).toBe('abcd\n[… 18 bytes omitted …]\nwxyz')
  })

  it('splits one big chunk between head and tail', () => {
    const c = new CappedOutput(6)
    c.push(Buffer.from('0123456789'))
    expect(c.text()).toBe('012\n[… 4 bytes omitted …]\n789')
  })
})
