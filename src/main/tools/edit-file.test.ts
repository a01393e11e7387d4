// edit_file (examples 1 and 2 of issue 4, encodings, stale-file check, parallel and multi-edits) and
// read_file/write_file encoding and size cases, against a real Docker guest (one guest for the file).
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import { makeContext, runTool, type RecordingContext } from './test-support'

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
const TEN_MB = `${'0123456789'.repeat(9)}abcdefghi\n`.repeat(100 * 1024) // 102,400 lines of 100 bytes (9.8 MiB)

describe.skipIf(skipWithoutDocker())('edit_file and encodings in a real guest', () => {
  let repo: string
  let ctx: RecordingContext
  const file = (rel: string): Buffer => readFileSync(join(repo, rel))

  beforeAll(async () => {
    repo = await makeTestRepo({
      'ex1.txt': 'alpha\r\nbeta\r\ngamma\r\n',
      'ex2.py': 'a = 1\nx = 1\nb = 2\nx = 1\n',
      'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('first\nsecond\n')]),
      'latin1.txt': Buffer.from('caf\xe9 cr\xe8me\nna\xefve line\n', 'latin1'),
      'utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\r\nworld\r\n', 'utf16le')]),
      'tabs.go': 'func f() {\n\treturn\t1\n}\n',
      'image.png': PNG,
      'code.py': 'import os\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\ndef save(path, data):\n    pass\n',
      'multi.txt': 'one\ntwo\nthree\n',
      'par.txt': 'A=1\nB=1\n',
      'stale.txt': 'keep\nvalue = 1\nend\n',
      'secret.txt': 'private\n',
      'big.txt': TEN_MB
    })
    ctx = makeContext(await startTestGuest(repo))
  })

  it('example 1: LF old_string in a CRLF file; the file stays CRLF', async () => {
    const r = await runTool('edit_file', { path: 'ex1.txt', old_string: 'alpha\nbeta', new_string: 'ALPHA\nBETA' }, ctx)
    expect(r.isError).toBe(false)
    expect(file('ex1.txt').toString('latin1')).toBe('ALPHA\r\nBETA\r\ngamma\r\n')
  })

  it('example 2: ambiguous edit names lines 2 and 4 and leaves the file byte-identical with the same mtime; replace_all; $& literal', async () => {
    const before = file('ex2.py')
    const mtime = statSync(join(repo, 'ex2.py')).mtimeMs
    const r = await runTool('edit_file', { path: 'ex2.py', old_string: 'x = 1', new_string: 'x = 2' }, ctx)
    expect(r.isError).toBe(true)
    expect(r.output).toMatch(/2 times .*lines 2, 4/)
    expect(file('ex2.py').equals(before)).toBe(true)
    expect(statSync(join(repo, 'ex2.py')).mtimeMs).toBe(mtime)
    expect((await runTool('edit_file', { path: 'ex2.py', old_string: 'x = 1', new_string: 'x = 2', replace_all: true }, ctx)).isError).toBe(false)
    expect(file('ex2.py').toString()).toBe('a = 1\nx = 2\nb = 2\nx = 2\n')
    await runTool('edit_file', { path: 'ex2.py', old_string: 'b = 2', new_string: 'q = $&' }, ctx)
    expect(file('ex2.py').toString()).toBe('a = 1\nx = 2\nq = $&\nx = 2\n')
  })

  it('keeps a UTF-8 BOM', async () => {
    await runTool('edit_file', { path: 'bom.txt', old_string: 'second', new_string: 'SECOND' }, ctx)
    expect(file('bom.txt').equals(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('first\nSECOND\n')]))).toBe(true)
  })

  it('reads and edits Latin-1 byte-faithfully, never writing U+FFFD, and refuses characters it cannot hold', async () => {
    const read = await runTool('read_file', { path: 'latin1.txt' }, ctx)
    expect(read.output).toContain('\tcafé crème')
    expect(read.output).not.toContain('\ufffd')
    expect(read.output).toMatch(/Encoding: Windows-1252 \/ Latin-1/)
    const r = await runTool('edit_file', { path: 'latin1.txt', old_string: 'café', new_string: 'thé' }, ctx)
    expect(r.isError).toBe(false)
    expect(file('latin1.txt').equals(Buffer.from('th\xe9 cr\xe8me\nna\xefve line\n', 'latin1'))).toBe(true)
    const before = file('latin1.txt')
    const bad = await runTool('edit_file', { path: 'latin1.txt', old_string: 'thé', new_string: 'tea ☕' }, ctx)
    expect(bad.isError).toBe(true)
    expect(bad.output).toMatch(/cannot hold "☕" \(U\+2615\)/)
    expect(file('latin1.txt').equals(before)).toBe(true)
  })

  it('reads and edits UTF-16LE with its BOM and CRLF kept', async () => {
    expect((await runTool('read_file', { path: 'utf16.txt' }, ctx)).output).toMatch(/^ {5}1\thello\n {5}2\tworld\n[\s\S]*UTF-16LE/)
    await runTool('edit_file', { path: 'utf16.txt', old_string: 'world', new_string: 'wörld' }, ctx)
    expect(file('utf16.txt').equals(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\r\nwörld\r\n', 'utf16le')]))).toBe(true)
  })

  it('read_file keeps real tabs; a truncated PNG is an error result naming its type and size', async () => {
    expect((await runTool('read_file', { path: 'tabs.go' }, ctx)).output).toContain('     2\t\treturn\t1\n')
    const img = await runTool('read_file', { path: 'image.png' }, ctx)
    expect(img).toEqual({ isError: true, output: expect.stringMatching(/image\.png starts like image\/png but is truncated or damaged \(16 bytes/) })
  })

  it('no match shows the closest region with line numbers; a no-op edit is an error', async () => {
    const r = await runTool('edit_file', { path: 'code.py', old_string: 'def save(path, data):\n  pass', new_string: 'x' }, ctx)
    expect(r.isError).toBe(true)
    expect(r.output).toMatch(/closest region is lines 7–8/)
    expect(r.output).toContain('     7\tdef save(path, data):\n     8\t    pass')
    expect((await runTool('edit_file', { path: 'code.py', old_string: 'pass', new_string: 'pass' }, ctx)).output).toMatch(/identical/)
  })

  it('multi-edit applies in order, all or nothing', async () => {
    const before = file('multi.txt')
    const bad = await runTool('edit_file', { path: 'multi.txt', edits: [{ old_string: 'one', new_string: '1' }, { old_string: 'nope', new_string: 'x' }] }, ctx)
    expect(bad.output).toMatch(/edit 2 of 2 failed, so none of the edits was applied/)
    expect(file('multi.txt').equals(before)).toBe(true)
    const ok = await runTool('edit_file', { path: 'multi.txt', edits: [{ old_string: 'one', new_string: '1' }, { old_string: '1\ntwo', new_string: '1\n2' }] }, ctx)
    expect(ok.output).toMatch(/Applied 2 edits/)
    expect(file('multi.txt').toString()).toBe('1\n2\nthree\n')
    expect((await runTool('edit_file', { path: 'multi.txt', old_string: 'a', new_string: 'b', edits: [{ old_string: 'a', new_string: 'b' }] }, ctx)).output).toMatch(/not both/)
  })

  it('serialises parallel edits of one file so both land', async () => {
    const [a, b] = await Promise.all([
      runTool('edit_file', { path: 'par.txt', old_string: 'A=1', new_string: 'A=2' }, ctx),
      runTool('edit_file', { path: 'par.txt', old_string: 'B=1', new_string: 'B=2' }, ctx)
    ])
    expect([a.isError, b.isError]).toEqual([false, false])
    expect(file('par.txt').toString()).toBe('A=2\nB=2\n')
  })

  it('detects a file changed since it was read, shows the current region, and ignores an identical rewrite', async () => {
    await runTool('read_file', { path: 'stale.txt' }, ctx)
    writeFileSync(join(repo, 'stale.txt'), 'keep\nvalue = 1\nend\n') // identical rewrite: not a change
    expect((await runTool('edit_file', { path: 'stale.txt', old_string: 'keep', new_string: 'KEEP' }, ctx)).isError).toBe(false)
    writeFileSync(join(repo, 'stale.txt'), 'KEEP\nvalue = 99\nend\n') // changed behind the model's back
    const r = await runTool('edit_file', { path: 'stale.txt', old_string: 'value = 1', new_string: 'value = 2' }, ctx)
    expect(r.isError).toBe(true)
    expect(r.output).toMatch(/has changed on disk since you last read or wrote it/)
    expect(r.output).toContain('     2\tvalue = 99')
    expect(file('stale.txt').toString()).toBe('KEEP\nvalue = 99\nend\n')
    const retry = await runTool('edit_file', { path: 'stale.txt', old_string: 'value = 99', new_string: 'value = 2' }, ctx)
    expect(retry.isError).toBe(false)
    expect(file('stale.txt').toString()).toBe('KEEP\nvalue = 2\nend\n')
  })

  it('write_file keeps the mode of an existing file and verifies by read-back', async () => {
    chmodSync(join(repo, 'secret.txt'), 0o600)
    const r = await runTool('write_file', { path: 'secret.txt', content: 'still private\n' }, ctx)
    expect(r.output).toMatch(/wrote 14 bytes \(verified by read-back\)/)
    expect(statSync(join(repo, 'secret.txt')).mode & 0o777).toBe(0o600)
    expect(statSync(join(repo, 'secret.txt')).uid).toBe(statSync(repo).uid)
  })

  it('reads the first page of a 10 MB file without reading the whole file', async () => {
    await runTool('read_file', { path: 'big.txt', limit: 10 }, ctx) // warm-up
    const t0 = performance.now()
    const r = await runTool('read_file', { path: 'big.txt' }, ctx)
    const ms = performance.now() - t0
    expect(ms).toBeLessThan(5_000) // hang guard only; bench/ prints the figure
    expect(r.output).toMatch(/showing lines 1–\d+\. To continue, call read_file with offset=\d+/)
    const five = await runTool('read_file', { path: 'big.txt', limit: 5 }, ctx)
    expect(five.output).toMatch(/showing lines 1–5; the file is 9\.8 MB and continues/)
    expect(r.output).not.toMatch(/ of 102400/)
  })
})
