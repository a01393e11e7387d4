// raceAbort: a Stop rejects at once, a value that arrives later goes to the cleanup.
import { describe, expect, it } from 'vitest'
import { raceAbort } from './abortable'

function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('raceAbort', () => {
  it('passes the value or the error through when no abort comes', async () => {
    const ac = new AbortController()
    await expect(raceAbort(Promise.resolve(1), ac.signal)).resolves.toBe(1)
    await expect(raceAbort(Promise.reject(new Error('boom')), ac.signal)).rejects.toThrow('boom')
    await expect(raceAbort(Promise.resolve(2), undefined)).resolves.toBe(2)
  })

  it('rejects with an AbortError as soon as the signal aborts, and hands a late value to onLate', async () => {
    const ac = new AbortController()
    const d = deferred<string>()
    const late: string[] = []
    const p = raceAbort(d.promise, ac.signal, (v) => late.push(v))
    ac.abort()
    await expect(p).rejects.toMatchObject({ name: 'AbortError' })
    expect(late).toEqual([])
    d.resolve('container-1')
    await d.promise
    await Promise.resolve()
    expect(late).toEqual(['container-1'])
  })

  it('rejects at once for a signal aborted already; a late failure is swallowed', async () => {
    const ac = new AbortController()
    ac.abort()
    const d = deferred<number>()
    await expect(raceAbort(d.promise, ac.signal)).rejects.toMatchObject({ name: 'AbortError' })
    // raceAbort's own handler is the only one: without it vitest would report an unhandled rejection
    d.reject(new Error('late failure'))
    await new Promise((r) => setTimeout(r, 10))
  })
})
