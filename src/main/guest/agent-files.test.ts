/**
 * Unit tests of the guest agent's file ops run directly on the host (Node built-ins only, so they
 * run here too): atomic write leaves no temp files, mode kept, realpath of missing paths, errors.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readOp, realpathOp, statOp, writeOp } from '../../guest-agent/files'

const dir = mkdtempSync(join(tmpdir(), 'cortex-agent-files-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const b64 = (s: string): string => Buffer.from(s).toString('base64')

describe('guest agent file ops', () => {
  it('writes atomically: no temp file left, parents created, mode kept', async () => {
    const p = join(dir, 'a', 'b', 'f.sh')
    expect(await writeOp({ op: 'write', path: p, dataB64: b64('one') })).toMatchObject({ size: 3 })
    chmodSync(p, 0o700)
    await writeOp({ op: 'write', path: p, dataB64: b64('two!') })
    expect(readFileSync(p, 'utf8')).toBe('two!')
    expect(statSync(p).mode & 0o777).toBe(0o700)
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['f.sh'])
  })

  it('reads slices and reports eof', async () => {
    const p = join(dir, 'r.txt')
    writeFileSync(p, '0123456789')
    const r = await readOp({ op: 'read', path: p, offset: 8, maxBytes: 5 })
    expect([Buffer.from(r.dataB64, 'base64').toString(), r.size, r.eof]).toEqual(['89', 10, true])
    const past = await readOp({ op: 'read', path: p, offset: 50 })
    expect([past.dataB64, past.eof]).toEqual(['', true])
    await expect(readOp({ op: 'read', path: p, offset: -1 })).rejects.toMatchObject({ code: 'BAD_REQUEST' })
    await expect(readOp({ op: 'read', path: 'r.txt' })).rejects.toMatchObject({ code: 'BAD_REQUEST' })
  })

  it('realpath resolves symlinked ancestors of a missing path; stat follows links', async () => {
    const real = join(dir, 'real')
    await writeOp({ op: 'write', path: join(real, 'x.txt'), dataB64: b64('x') })
    symlinkSync(real, join(dir, 'ln'))
    expect(await realpathOp({ op: 'realpath', path: join(dir, 'ln', 'new', 'y.txt') })).toEqual({ realpath: join(real, 'new', 'y.txt'), exists: false })
    expect(await realpathOp({ op: 'realpath', path: join(dir, 'ln', 'x.txt', 'under-a-file') })).toMatchObject({ exists: false })
    expect(await statOp({ op: 'stat', path: join(dir, 'ln') })).toMatchObject({ type: 'dir', realpath: real })
    await expect(statOp({ op: 'stat', path: join(dir, 'nope') })).rejects.toMatchObject({ code: 'ENOENT' })
  })
})
