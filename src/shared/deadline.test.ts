// raceDeadline: a value before the deadline, the deadline, an abort (also one already aborted), a
// rejection before and after the race was decided, a late value handed to onLate, and no listener
// or timer left behind on the signal.
import { describe, expect, it, vi } from 'vitest'
import { raceDeadline } from './deadline'

const later = <T>(ms: number, value: T): Promise<T> => new Promise((r) => setTimeout(() => r(value), ms))

describe('raceDeadline', () => {
  it('gives the value when it arrives first and removes its abort listener', async () => {
    const ac = new AbortController()
    const remove = vi.spyOn(ac.signal, 'removeEventListener')
    expect(await raceDeadline(Promise.resolve(7), { ms: 1000, signal: ac.signal })).toEqual({ kind: 'value', value: 7 })
    expect(remove).toHaveBeenCalled()
  })

  it('ends at the deadline and hands the late value to onLate', async () => {
    const late = vi.fn()
    let arrive!: (v: string) => void
    const p = new Promise<string>((r) => (arrive = r))
    expect(await raceDeadline(p, { ms: 5, onLate: late })).toEqual({ kind: 'timeout' })
    arrive('x')
    await vi.waitFor(() => expect(late).toHaveBeenCalledWith('x'), { timeout: 2000 })
  })

  it('ends at an abort, and at once for a signal aborted already', async () => {
    const ac = new AbortController()
    const r = raceDeadline(new Promise(() => undefined), { ms: 60_000, signal: ac.signal })
    ac.abort()
    expect(await r).toEqual({ kind: 'aborted' })
    expect(await raceDeadline(later(10, 1), { signal: AbortSignal.abort() })).toEqual({ kind: 'aborted' })
  })

  it('passes a rejection that comes first on, and swallows one that comes after', async () => {
    await expect(raceDeadline(Promise.reject(new Error('boom')), { ms: 1000 })).rejects.toThrow('boom')
    let fail!: (e: Error) => void
    const lateFailure = new Promise((_, reject) => (fail = reject))
    expect(await raceDeadline(lateFailure, { ms: 1 })).toEqual({ kind: 'timeout' })
    fail(new Error('late')) // must not surface as an unhandled rejection (vitest fails the run on one)
    await Promise.resolve()
  })
})
