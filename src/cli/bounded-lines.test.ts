// splitLinesBounded on a real stream: line numbers, CRLF, a last line without a newline, a line of
// exactly the cap kept, one byte more reported once at the cap (also across chunks) and its rest dropped.
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { splitLinesBounded, type BoundedLine } from './bounded-lines'

async function split(chunks: Array<string | Buffer>, cap: number): Promise<BoundedLine[]> {
  const input = new PassThrough()
  const got: BoundedLine[] = []
  const r = splitLinesBounded(input, cap, (l) => got.push(l))
  for (const c of chunks) input.write(c)
  input.end()
  await r.ended
  return got
}

describe('splitLinesBounded', () => {
  it('splits on newlines, drops a \\r before them, numbers blank lines and gives the last unended line', async () => {
    expect(await split(['a\r\n\nb', 'c\nlast'], 10)).toEqual([
      { kind: 'line', line: 1, text: 'a' },
      { kind: 'line', line: 2, text: '' },
      { kind: 'line', line: 3, text: 'bc' },
      { kind: 'line', line: 4, text: 'last' }
    ])
  })

  it('keeps a line of exactly the cap; one byte over is reported once and dropped to its newline', async () => {
    expect(await split(['12345\n123', '456', '789', '\nok\n'], 5)).toEqual([
      { kind: 'line', line: 1, text: '12345' },
      { kind: 'over', line: 2 },
      { kind: 'line', line: 3, text: 'ok' }
    ])
  })

  it('reports an over-cap line before it ends and holds none of it after', async () => {
    const input = new PassThrough()
    const got: BoundedLine[] = []
    splitLinesBounded(input, 4, (l) => got.push(l))
    input.write('abcdefgh')
    await new Promise((r) => setImmediate(r))
    expect(got).toEqual([{ kind: 'over', line: 1 }])
    input.write(Buffer.from('ijk{"x":1}'))
    input.end('\né\n')
    await new Promise((r) => input.once('end', r))
    expect(got).toEqual([{ kind: 'over', line: 1 }, { kind: 'line', line: 2, text: 'é' }])
  })

  it('close() stops reading at once', async () => {
    const input = new PassThrough()
    const got: BoundedLine[] = []
    const r = splitLinesBounded(input, 10, (l) => got.push(l))
    input.write('one\n')
    await new Promise((res) => setImmediate(res))
    r.close()
    await r.ended
    input.write('two\n')
    await new Promise((res) => setImmediate(res))
    expect(got).toEqual([{ kind: 'line', line: 1, text: 'one' }])
  })
})
