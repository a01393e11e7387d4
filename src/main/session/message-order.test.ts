// Messages around an MCP prompt fetch keep their order; a Stop drops what waits.
import { describe, expect, it } from 'vitest'
import { MessageOrder } from './message-order'

function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((a, b) => ((resolve = a), (reject = b)))
  return { promise, resolve, reject }
}

describe('MessageOrder', () => {
  it('delivers at once with nothing in flight, and in typed order behind a prompt fetch', async () => {
    const told: string[] = []
    const order = new MessageOrder((t) => told.push(t))
    const out: string[] = []
    expect(order.submit('a', undefined, () => out.push('a'))).toBeUndefined()
    const fetch = deferred<() => void>()
    const p = order.submit('/mcp__s__p', fetch.promise, () => out.push('unused'))
    const q = order.submit('b', undefined, () => out.push('b'))
    expect(out).toEqual(['a'])
    fetch.resolve(() => out.push('prompt'))
    await Promise.all([p, q])
    expect(out).toEqual(['a', 'prompt', 'b'])
    expect(order.submit('c', undefined, () => out.push('c'))).toBeUndefined() // the queue drained
    expect(told).toEqual([])
  })

  it('on Stop sends neither the stopped prompt nor what waited behind it, and says so', async () => {
    const told: string[] = []
    const order = new MessageOrder((t) => told.push(t))
    const out: string[] = []
    const fetch = deferred<() => void>()
    const p = order.submit('/mcp__s__p x', fetch.promise, () => out.push('unused'))
    const q = order.submit('after', undefined, () => out.push('after'))
    order.stop()
    fetch.reject(new DOMException('stopped', 'AbortError'))
    await Promise.all([p, q])
    expect(out).toEqual([])
    expect(told).toEqual(['/mcp__s__p x', 'after'])
  })

  it('rejects with a failed fetch and still delivers the next message', async () => {
    const order = new MessageOrder(() => undefined)
    const out: string[] = []
    const p = order.submit('/mcp__s__p', Promise.reject(new Error('needs city')), () => undefined)
    const q = order.submit('next', undefined, () => out.push('next'))
    await expect(p).rejects.toThrow('needs city')
    await q
    expect(out).toEqual(['next'])
  })
})
