// The setup cache's lockfile part (docs/adr/0038): which files count, a change changes the hash,
// a link is never followed.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { hashLockfiles } from './lockfiles'

const dir = mkdtempSync(join(tmpdir(), 'cortex-lockfiles-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('hashLockfiles', () => {
  it('hashes the top folder\'s lockfiles by name and bytes; other files do not count', () => {
    const empty = hashLockfiles(dir)
    expect(empty.files).toEqual([])
    writeFileSync(join(dir, 'package-lock.json'), '{}')
    writeFileSync(join(dir, 'requirements-dev.txt'), 'pytest\n')
    writeFileSync(join(dir, 'README.md'), 'x')
    const a = hashLockfiles(dir)
    expect(a.files).toEqual(['package-lock.json', 'requirements-dev.txt'])
    expect(a.hash).not.toBe(empty.hash)
    writeFileSync(join(dir, 'README.md'), 'y')
    expect(hashLockfiles(dir).hash).toBe(a.hash)
    writeFileSync(join(dir, 'requirements-dev.txt'), 'pytest==8\n')
    expect(hashLockfiles(dir).hash).not.toBe(a.hash)
  })

  it('hashes a link as its target name without reading through it', () => {
    const outside = mkdtempSync(join(tmpdir(), 'cortex-lockfiles-out-'))
    try {
      writeFileSync(join(outside, 'secret'), 'one')
      symlinkSync(join(outside, 'secret'), join(dir, 'Cargo.lock'))
      const before = hashLockfiles(dir).hash
      writeFileSync(join(outside, 'secret'), 'two')
      expect(hashLockfiles(dir).hash).toBe(before)
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })
})
