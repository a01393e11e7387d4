// read_file, write_file and edit_file against a real Docker guest (one guest for the file).
import { chmodSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import type { Guest } from '../guest/guest'
import { makeContext, runTool, type RecordingContext } from './test-support'
import { MAX_RESULT_CHARS } from './limits'

// 10,485 lines of 100 bytes, then a line whose 'é' (2 bytes) straddles the 1 MiB read-chunk boundary.
const straddle = `${'a'.repeat(99)}\n`.repeat(10_485) + `${'b'.repeat(75)}é tail\n`
const manyLines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'

describe.skipIf(skipWithoutDocker())('file tools in a real guest', () => {
  let repo: string
  let guest: Guest
  let ctx: RecordingContext

  beforeAll(async () => {
    repo = await makeTestRepo({
      'hello.txt': 'one\ntwo\nthree\n',
      'many.txt': manyLines,
      'short.txt': 'x\n'.repeat(2500),
      'straddle.txt': straddle,
      'run.sh': '#!/bin/sh\necho old\n',
      'crlf.txt': 'alpha\r\nbeta\r\ngamma\r\n',
      'dup.py': 'a = 1\nx = 1\nb = 2\nx = 1\n',
      'subst.txt': 'p = 1\n',
      'src/mod.ts': 'export const a = 1\n',
      'bin.dat': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]),
      'empty.txt': ''
    })
    symlinkSync('/etc', join(repo, 'etc-link'))
    symlinkSync('hello.txt', join(repo, 'inner-link'))
    symlinkSync('/tmp/cortex-escape.txt', join(repo, 'dangling'))
    guest = await startTestGuest(repo)
    ctx = makeContext(guest)
  })

  const file = (rel: string): Buffer => readFileSync(join(repo, rel))

  describe('read_file', () => {
    it('numbers lines cat -n style with a footer', async () => {
      const r = await runTool('read_file', { path: 'hello.txt' }, ctx)
      expect(r.isError).toBe(false)
      expect(r.output).toMatch(/^ {5}1\tone\n {5}2\ttwo\n {5}3\tthree\n/)
      expect(r.output).toMatch(/all 3 lines shown/)
    })
    it('pages with offset/limit and says how to continue', async () => {
      const r = await runTool('read_file', { path: 'many.txt', offset: 10, limit: 5 }, ctx)
      expect(r.output.split('\n').slice(0, 5)).toEqual([10, 11, 12, 13, 14].map((n) => `${String(n).padStart(6)}\tline ${n}`))
      expect(r.output).toMatch(/lines 10–14 of 3000/)
      expect(r.output).toMatch(/offset=15/)
      const d = await runTool('read_file', { path: 'short.txt' }, ctx)
      expect(d.output).toMatch(/lines 1–2000 of 2500/)
      expect(d.output).toMatch(/offset=2001/)
    })
    it('stops at the character cap and continues from the first line not shown', async () => {
      const r = await runTool('read_file', { path: 'many.txt' }, ctx)
      expect(r.output.length).toBeLessThanOrEqual(MAX_RESULT_CHARS)
      const m = /output capped at 30,000 characters; showing lines 1–(\d+) of 3000\. To continue, call read_file with offset=(\d+)/.exec(r.output)
      expect(m).not.toBeNull()
      const last = Number(m?.[1])
      expect(Number(m?.[2])).toBe(last + 1)
      expect(r.output).toContain(`\tline ${last}\n`)
      expect(r.output).not.toContain(`\tline ${last + 1}\n`)
      const next = await runTool('read_file', { path: 'many.txt', offset: last + 1, limit: 1 }, ctx)
      expect(next.output.split('\n')[0]).toBe(`${String(last + 1).padStart(6)}\tline ${last + 1}`)
    })
    it('accepts an absolute path inside the workspace and shows CRLF files without \\r', async () => {
      const r = await runTool('read_file', { path: join(repo, 'crlf.txt') }, ctx)
      expect(r.output).not.toContain('\r')
      expect(r.output).toMatch(/\tbeta\n/)
      expect(r.output).toMatch(/CRLF/)
    })
    it('decodes a multi-byte character split across read chunks', async () => {
      expect(Buffer.byteLength(straddle.slice(0, straddle.indexOf('é')))).toBe(1024 * 1024 - 1)
      const r = await runTool('read_file', { path: 'straddle.txt', offset: 10_486 }, ctx)
      expect(r.output.split('\n')[0]).toBe(` 10486\t${'b'.repeat(75)}é tail`)
      expect(r.output).toMatch(/10486 lines shown|lines 10486–10486 of 10486/)
    })
    it('gives a notice for binary and empty files', async () => {
      const b = await runTool('read_file', { path: 'bin.dat' }, ctx)
      expect(b.isError).toBe(false)
      expect(b.output).toMatch(/binary file: ELF executable, 7 bytes/)
      expect((await runTool('read_file', { path: 'empty.txt' }, ctx)).output).toMatch(/empty: 0 bytes/)
    })
    it('distinguishes missing, directory and past-the-end errors', async () => {
      const missing = await runTool('read_file', { path: 'nope.txt' }, ctx)
      expect(missing).toMatchObject({ isError: true })
      expect(missing.output).toMatch(/not found: nope\.txt/)
      const dir = await runTool('read_file', { path: 'src' }, ctx)
      expect(dir.isError).toBe(true)
      expect(dir.output).toMatch(/is a directory/)
      const past = await runTool('read_file', { path: 'hello.txt', offset: 10 }, ctx)
      expect(past.isError).toBe(true)
      expect(past.output).toMatch(/past the end.*3 lines/)
    })
    it('refuses paths outside the workspace, including through a symlink', async () => {
      for (const path of ['/etc/passwd', '../../etc/passwd', 'etc-link/passwd']) {
        const r = await runTool('read_file', { path }, ctx)
        expect(r.isError, path).toBe(true)
        expect(r.output, path).toMatch(/outside the workspace/)
      }
      const inner = await runTool('read_file', { path: 'inner-link' }, ctx)
      expect(inner.isError).toBe(false)
      expect(inner.output).toMatch(/\tone\n/)
    })
  })

  describe('write_file', () => {
    it('writes exact bytes, creating parent directories, as the repo owner', async () => {
      const content = 'héllo\nno trailing newline'
      const r = await runTool('write_file', { path: 'new/deep/f.txt', content }, ctx)
      expect(r.isError).toBe(false)
      const bytes = Buffer.byteLength(content)
      expect(r.output).toMatch(new RegExp(`Created new/deep/f\\.txt: wrote ${bytes} bytes`))
      expect(file('new/deep/f.txt').equals(Buffer.from(content))).toBe(true)
      expect(statSync(join(repo, 'new/deep/f.txt')).uid).toBe(statSync(repo).uid)
    })
    it('overwrites an existing file and refuses directories and outside paths', async () => {
      const r = await runTool('write_file', { path: 'subst.txt', content: 'p = 2\n' }, ctx)
      expect(r.output).toMatch(/^Overwrote subst\.txt/)
      expect(file('subst.txt').toString()).toBe('p = 2\n')
      writeFileSync(join(repo, 'subst.txt'), 'p = 1\n')
      expect((await runTool('write_file', { path: 'src', content: 'x' }, ctx)).output).toMatch(/is a directory/)
      const out = await runTool('write_file', { path: 'etc-link/evil', content: 'x' }, ctx)
      expect(out.isError).toBe(true)
      expect(out.output).toMatch(/outside the workspace/)
      expect((await runTool('write_file', { path: '/tmp/evil', content: 'x' }, ctx)).isError).toBe(true)
    })
  })

  it('never writes outside the workspace through a dangling symlink', async () => {
    const r = await runTool('write_file', { path: 'dangling', content: 'escaped' }, ctx)
    // Either refused, or the link itself is replaced inside the workspace; never the target written.
    await expect(guest.stat('/tmp/cortex-escape.txt')).rejects.toMatchObject({ code: 'ENOENT' })
    if (!r.isError) expect(file('dangling').toString()).toBe('escaped')
  })

  describe('edit_file', () => {
    it('matches LF text in a CRLF file and keeps CRLF', async () => {
      const r = await runTool('edit_file', { path: 'crlf.txt', old_string: 'alpha\nbeta', new_string: 'ALPHA\nBETA' }, ctx)
      expect(r.isError).toBe(false)
      expect(file('crlf.txt').toString()).toBe('ALPHA\r\nBETA\r\ngamma\r\n')
    })
    it('refuses an ambiguous edit naming the lines, leaving the file byte-identical', async () => {
      const before = file('dup.py')
      const r = await runTool('edit_file', { path: 'dup.py', old_string: 'x = 1', new_string: 'x = 2' }, ctx)
      expect(r.isError).toBe(true)
      expect(r.output).toMatch(/2 times/)
      expect(r.output).toMatch(/lines 2, 4/)
      expect(file('dup.py').equals(before)).toBe(true)
    })
    it('replace_all changes every occurrence', async () => {
      const r = await runTool('edit_file', { path: 'dup.py', old_string: 'x = 1', new_string: 'x = 2', replace_all: true }, ctx)
      expect(r.output).toMatch(/Replaced 2 occurrences/)
      expect(file('dup.py').toString()).toBe('a = 1\nx = 2\nb = 2\nx = 2\n')
    })
    it('keeps the file mode (an executable stays executable)', async () => {
      chmodSync(join(repo, 'run.sh'), 0o755)
      await runTool('edit_file', { path: 'run.sh', old_string: 'echo old', new_string: 'echo new' }, ctx)
      expect(file('run.sh').toString()).toBe('#!/bin/sh\necho new\n')
      expect(statSync(join(repo, 'run.sh')).mode & 0o777).toBe(0o755)
    })
    it('inserts $& literally', async () => {
      await runTool('read_file', { path: 'subst.txt' }, ctx) // restored behind the tools' back above
      await runTool('edit_file', { path: 'subst.txt', old_string: 'p = 1', new_string: 'q = $&' }, ctx)
      expect(file('subst.txt').toString()).toBe('q = $&\n')
    })
    it('reports no match, no-op edits, missing files and binaries as errors without writing', async () => {
      const before = file('hello.txt')
      expect((await runTool('edit_file', { path: 'hello.txt', old_string: 'four', new_string: '4' }, ctx)).output).toMatch(/not found/)
      expect((await runTool('edit_file', { path: 'hello.txt', old_string: 'one', new_string: 'one' }, ctx)).output).toMatch(/identical/)
      expect(file('hello.txt').equals(before)).toBe(true)
      expect((await runTool('edit_file', { path: 'none.txt', old_string: 'a', new_string: 'b' }, ctx)).output).toMatch(/not found/)
      expect((await runTool('edit_file', { path: 'bin.dat', old_string: 'E', new_string: 'F' }, ctx)).output).toMatch(/binary/)
    })
  })
})
