// The setup cache's lockfile part (docs/adr/0038): which files count, a change changes the hash,
// a link is never followed.
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { hashLockfiles, MAX_HASHED_FILE_BYTES } from './lockfiles'

const dir = mkdtempSync(join(tmpdir(), 'cortex-lockfiles-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('hashLockfiles', () => {
  it('hashes the top folder\'s lockfiles by name and bytes; other files do not count', async () => {
    const empty = await hashLockfiles(dir)
    expect(empty.files).toEqual([])
    writeFileSync(join(dir, 'package-lock.json'), '{}')
    writeFileSync(join(dir, 'requirements-dev.txt'), 'pytest\n')
    writeFileSync(join(dir, 'README.md'), 'x')
    const a = await hashLockfiles(dir)
    expect(a.files).toEqual(['package-lock.json', 'requirements-dev.txt'])
    expect(a.hash).not.toBe(empty.hash)
    writeFileSync(join(dir, 'README.md'), 'y')
    expect((await hashLockfiles(dir)).hash).toBe(a.hash)
    writeFileSync(join(dir, 'requirements-dev.txt'), 'pytest==8\n')
    expect((await hashLockfiles(dir)).hash).not.toBe(a.hash)
  })

  it('hashes a link as its target name without reading through it', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'cortex-lockfiles-out-'))
    try {
      writeFileSync(join(outside, 'secret'), 'one')
      symlinkSync(join(outside, 'secret'), join(dir, 'Cargo.lock'))
      const before = (await hashLockfiles(dir)).hash
      writeFileSync(join(outside, 'secret'), 'two')
      expect((await hashLockfiles(dir)).hash).toBe(before)
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })

  it('keys a file over 64 MiB by its size and time, never reading it, and says so', async () => {
    const big = mkdtempSync(join(tmpdir(), 'cortex-lockfiles-big-'))
    try {
      writeFileSync(join(big, 'yarn.lock'), 'a\n')
      writeFileSync(join(big, 'package-lock.json'), '')
      truncateSync(join(big, 'package-lock.json'), 2 ** 40) // a sparse terabyte: costs no disk
      const t0 = performance.now()
      const a = await hashLockfiles(big)
      expect(performance.now() - t0).toBeLessThan(1000)
      expect(a.files).toEqual([`package-lock.json (over ${MAX_HASHED_FILE_BYTES / 2 ** 20} MiB: its size and time stand for its bytes)`, 'yarn.lock'])
      truncateSync(join(big, 'package-lock.json'), 2 ** 40 + 1)
      expect((await hashLockfiles(big)).hash).not.toBe(a.hash)
    } finally {
      rmSync(big, { recursive: true, force: true })
    }
  })

  it('ends on the signal between two chunks', async () => {
    const big = mkdtempSync(join(tmpdir(), 'cortex-lockfiles-abort-'))
    try {
      writeFileSync(join(big, 'Cargo.lock'), '')
      truncateSync(join(big, 'Cargo.lock'), MAX_HASHED_FILE_BYTES) // read in full: 64 chunks
      const stop = new AbortController()
      const hashing = hashLockfiles(big, stop.signal)
      stop.abort()
      await expect(hashing).rejects.toMatchObject({ name: 'AbortError' })
    } finally {
      rmSync(big, { recursive: true, force: true })
    }
  })
})
