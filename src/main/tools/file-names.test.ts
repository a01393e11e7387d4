// File names the model cannot type exactly: Unicode normalization (NFC vs NFD), space variants
// (no-break and narrow no-break spaces, as in macOS screenshot names) and names that are not UTF-8
// (Latin-1 bytes, 0xff, a line break). Real Docker guest; bytes checked on the host.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import { makeContext, runTool, type RecordingContext } from './test-support'

const SHOT = 'Screenshot 2024-01-01 at 10.00.00\u202fAM.txt'
const NBSP = 'nb\u00a0sp.txt'
const NFD = 'cafe\u0301.md'
const LATIN1 = Buffer.from('caf\xe9.txt', 'latin1')
const FF = Buffer.concat([Buffer.from('raw-'), Buffer.from([0xff, 0xfe]), Buffer.from('\\x41.txt')])
const DIR = Buffer.from('d\xeer', 'latin1')

describe.skipIf(skipWithoutDocker())('file names in a real guest', () => {
  let repo: string
  let ctx: RecordingContext

  beforeAll(async () => {
    repo = await makeTestRepo({ [SHOT]: 'shot needle\n', [NBSP]: 'nbsp needle\n', [NFD]: 'nfd needle\n', 'twin a.txt': 'x\n', 'twin\u00a0a.txt': 'y\n', 'trailing.txt ': 'trailing needle\n' }, { git: false })
    const raw = (name: Buffer, body: string): void => writeFileSync(Buffer.concat([Buffer.from(`${repo}/`), name]), body)
    raw(LATIN1, 'latin needle\n')
    raw(FF, 'ff needle\n')
    raw(Buffer.from('line\nbreak.txt'), 'nl needle\n')
    mkdirSync(Buffer.concat([Buffer.from(`${repo}/`), DIR]))
    raw(Buffer.concat([DIR, Buffer.from('/inner.txt')]), 'inner needle\n')
    if (process.getuid?.() === 0) execFileSync('chown', ['-R', '4242:4242', repo])
    ctx = makeContext(await startTestGuest(repo))
  })

  const hostBytes = (name: Buffer | string): Buffer => readFileSync(Buffer.concat([Buffer.from(`${repo}/`), Buffer.isBuffer(name) ? name : Buffer.from(name)]))

  describe('normalization and space variants', () => {
    it('read_file finds a screenshot name typed with a plain space and says which character differs', async () => {
      const r = await runTool('read_file', { path: 'Screenshot 2024-01-01 at 10.00.00 AM.txt' }, ctx)
      expect(r.isError).toBe(false)
      expect(r.output).toMatch(/^ {5}1\tshot needle\n/)
      expect(r.output).toMatch(/U\+202F NARROW NO-BREAK SPACE where a plain space was given/)
    })
    it('read_file finds an NFD name typed in NFC, and an NBSP name typed with a space', async () => {
      const nfc = await runTool('read_file', { path: 'caf\u00e9.md' }, ctx)
      expect(nfc.output).toMatch(/^ {5}1\tnfd needle\n/)
      expect(nfc.output).toMatch(/stored decomposed \(Unicode NFD\)/)
      const nb = await runTool('read_file', { path: 'nb sp.txt' }, ctx)
      expect(nb.output).toMatch(/^ {5}1\tnbsp needle\n/)
      expect(nb.output).toMatch(/U\+00A0 NO-BREAK SPACE/)
    })
    it('edit_file and write_file change the existing file, never create a look-alike twin', async () => {
      const e = await runTool('edit_file', { path: 'caf\u00e9.md', old_string: 'nfd needle', new_string: 'nfd edited' }, ctx)
      expect(e.isError).toBe(false)
      expect(hostBytes(NFD).toString()).toBe('nfd edited\n')
      const w = await runTool('write_file', { path: 'Screenshot 2024-01-01 at 10.00.00 AM.txt', content: 'rewritten\n' }, ctx)
      expect(w.output).toMatch(/^Overwrote /)
      expect(hostBytes(SHOT).toString()).toBe('rewritten\n')
      const names = readdirSync(repo)
      expect(names.filter((n) => n.startsWith('Screenshot'))).toEqual([SHOT])
      expect(names.filter((n) => n.normalize('NFC') === 'caf\u00e9.md')).toEqual([NFD])
    })
    it('a name that ends with a space is found as typed (glob shows it so)', async () => {
      const g = await runTool('glob', { pattern: 'trail*' }, ctx)
      expect(g.output.split('\n')[0]).toBe('trailing.txt ')
      const r = await runTool('read_file', { path: 'trailing.txt ' }, ctx)
      expect(r.output).toMatch(/^ {5}1\ttrailing needle\n/)
    })
    it('an exact name wins, and several near matches are named in the error', async () => {
      const exact = await runTool('read_file', { path: 'twin a.txt' }, ctx)
      expect(exact.output).toMatch(/^ {5}1\tx\n/)
      expect(exact.output).not.toMatch(/Note:/)
      const r = await runTool('read_file', { path: 'twin\u202fa.txt' }, ctx)
      expect(r.isError).toBe(true)
      expect(r.output).toContain('File not found')
      expect(r.output).toContain(JSON.stringify('twin a.txt'))
      expect(r.output).toContain(JSON.stringify('twin\u00a0a.txt'))
    })
  })

  describe('names that are not UTF-8', () => {
    it('glob shows them with \\xHH escapes (a backslash doubled) and read_file reads them back', async () => {
      const r = await runTool('glob', { pattern: '**/*' }, ctx)
      expect(r.isError).toBe(false)
      const names = r.output.split('\n\n')[0]?.split('\n') ?? []
      expect(names).toContain('caf\\xe9.txt')
      expect(names).toContain('raw-\\xff\\xfe\\\\x41.txt')
      expect(names).toContain('line\\x0abreak.txt')
      expect(names).toContain('d\\xeer/inner.txt')
      expect(r.output).not.toContain('\ufffd')
      const bodies: Record<string, string> = {
        'caf\\xe9.txt': 'latin needle',
        'raw-\\xff\\xfe\\\\x41.txt': 'ff needle',
        'line\\x0abreak.txt': 'nl needle',
        'd\\xeer/inner.txt': 'inner needle'
      }
      for (const [name, body] of Object.entries(bodies)) {
        const read = await runTool('read_file', { path: name }, ctx)
        expect(read.isError, name).toBe(false)
        expect(read.output).toMatch(new RegExp(`^ {5}1\\t${body}\\n`))
      }
    })
    it('grep names them the same way, searches them by that name, and glob searches inside such a folder', async () => {
      const r = await runTool('grep', { pattern: 'needle' }, ctx)
      const lines = r.output.split('\n\n')[0]?.split('\n') ?? []
      expect(lines).toContain('caf\\xe9.txt:1:latin needle')
      expect(lines).toContain('raw-\\xff\\xfe\\\\x41.txt:1:ff needle')
      expect(lines).toContain('d\\xeer/inner.txt:1:inner needle')
      const one = await runTool('grep', { pattern: 'needle', path: 'raw-\\xff\\xfe\\\\x41.txt' }, ctx)
      expect(one.output.split('\n')[0]).toBe('raw-\\xff\\xfe\\\\x41.txt:1:ff needle')
      const inDir = await runTool('grep', { pattern: 'needle', path: 'd\\xeer' }, ctx)
      expect(inDir.output.split('\n')[0]).toBe('d\\xeer/inner.txt:1:inner needle')
      const g = await runTool('glob', { pattern: '*.txt', path: 'd\\xeer' }, ctx)
      expect(g.output.split('\n')[0]).toBe('d\\xeer/inner.txt')
    })
    it('edit_file and write_file keep the exact name bytes', async () => {
      const e = await runTool('edit_file', { path: 'caf\\xe9.txt', old_string: 'latin needle', new_string: 'latin edited' }, ctx)
      expect(e.isError).toBe(false)
      expect(hostBytes(LATIN1).toString()).toBe('latin edited\n')
      const w = await runTool('write_file', { path: 'd\\xeer/new\\xff.txt', content: 'new\n' }, ctx)
      expect(w.isError).toBe(false)
      expect(hostBytes(Buffer.concat([DIR, Buffer.from('/new'), Buffer.from([0xff]), Buffer.from('.txt')])).toString()).toBe('new\n')
      expect(w.output).toContain('d\\xeer/new\\xff.txt')
    })
  })
})
