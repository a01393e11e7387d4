// read_file on large files in a real guest: the first page of a 50 MB single-line file and a page at
// line 5,000,000 of a 1 GiB file come back correct without the file crossing to the host (the
// agent's newline scan). Durations are asserted only as hang guards (10x the expected ~1 s);
// figures are in bench/tools.ts.
import { closeSync, openSync, writeSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import { makeContext, runTool, type RecordingContext } from './test-support'

const GUARD_MS = 10_000
const LONG_BYTES = 50 * 1024 * 1024
/** Lines of the 1 GiB file: `NNNNNNNNNN <89 x>` plus LF = 101 bytes each. */
const BIG_LINES = Math.ceil(2 ** 30 / 101)
const bigLine = (n: number): string => `${String(n).padStart(10, '0')} ${'x'.repeat(89)}`

describe.skipIf(skipWithoutDocker())('read_file on large files in a real guest', () => {
  let ctx: RecordingContext

  beforeAll(async () => {
    const repo = await makeTestRepo({}, { git: false })
    let fd = openSync(join(repo, 'long.txt'), 'w')
    writeSync(fd, Buffer.alloc(LONG_BYTES, 'y'))
    writeSync(fd, '\nafter the long line\nlast\n')
    closeSync(fd)
    fd = openSync(join(repo, 'big.txt'), 'w')
    const per = 10_000
    for (let start = 1; start <= BIG_LINES; start += per) {
      let block = ''
      for (let n = start; n < Math.min(start + per, BIG_LINES + 1); n++) block += `${bigLine(n)}\n`
      writeSync(fd, block)
    }
    closeSync(fd)
    if (process.getuid?.() === 0) execFileSync('chown', ['-R', '4242:4242', repo])
    ctx = makeContext(await startTestGuest(repo))
  }, 300_000)

  const timed = async (args: Record<string, unknown>): Promise<{ output: string; isError: boolean }> => {
    const t0 = Date.now()
    const r = await runTool('read_file', args, ctx)
    expect(Date.now() - t0).toBeLessThan(GUARD_MS)
    return r
  }

  it('shows a 50 MB line cut with its length in bytes, then the lines after it', async () => {
    const r = await timed({ path: 'long.txt' })
    expect(r.isError).toBe(false)
    const lines = r.output.split('\n')
    expect(lines[0]).toBe(`     1\t${'y'.repeat(2000)}… [line truncated: 52,428,800 bytes; the rest was skipped]`)
    expect(lines[1]).toBe('     2\tafter the long line')
    expect(lines[2]).toBe('     3\tlast')
    expect(r.output).toMatch(/all 3 lines shown\. 1 line was longer than 2,000 characters and cut/)
    const second = await timed({ path: 'long.txt', offset: 2, limit: 1 })
    expect(second.output.split('\n')[0]).toBe('     2\tafter the long line')
  })

  it('pages at line 5,000,000 of a 1 GiB file, and at its end with the total', async () => {
    const r = await timed({ path: 'big.txt', offset: 5_000_000, limit: 3 })
    expect(r.isError).toBe(false)
    expect(r.output.split('\n').slice(0, 3)).toEqual([5_000_000, 5_000_001, 5_000_002].map((n) => `${n}\t${bigLine(n)}`))
    expect(r.output).toMatch(/showing lines 5000000–5000002; the file is .* To continue, call read_file with offset=5000003/)
    const end = await timed({ path: 'big.txt', offset: BIG_LINES - 1 })
    expect(end.output.split('\n').slice(0, 2)).toEqual([BIG_LINES - 1, BIG_LINES].map((n) => `${String(n).padStart(6)}\t${bigLine(n)}`))
    expect(end.output).toContain(`of ${BIG_LINES}; end of file`)
    const past = await timed({ path: 'big.txt', offset: BIG_LINES + 1 })
    expect(past.isError).toBe(true)
    expect(past.output).toBe(`offset ${BIG_LINES + 1} is past the end of big.txt, which has ${BIG_LINES} lines.`)
  })
})
