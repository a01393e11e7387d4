// FIFOs, sockets and symlinks to them never block read_file, grep or glob, and the agent's read
// refuses them itself (a FIFO swapped in after the tool's stat cannot block it). Real Docker guest.
import { spawnSync, execFileSync } from 'node:child_process'
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import type { Guest } from '../guest/guest'
import { makeContext, runTool, type RecordingContext } from './test-support'

/** Hang guard for one tool call that should take well under a second (10x). */
const GUARD_MS = 10_000

describe.skipIf(skipWithoutDocker())('special files in a real guest', () => {
  let repo: string
  let guest: Guest
  let ctx: RecordingContext

  beforeAll(async () => {
    repo = await makeTestRepo({ 'a.txt': 'needle in a\n', 'sub/b.txt': 'needle in b\n' }, { git: false })
    execFileSync('mkfifo', [join(repo, 'pipe'), join(repo, 'sub', 'pipe.txt')])
    // A unix socket file left behind by a process that exited without closing it.
    const sock = join(repo, 'sock.txt')
    const r = spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(sock)}, () => process.exit(0))`])
    expect(r.status).toBe(0)
    symlinkSync('pipe', join(repo, 'pipe-link.txt'))
    if (process.getuid?.() === 0) execFileSync('chown', ['-hR', '4242:4242', repo])
    guest = await startTestGuest(repo)
    ctx = makeContext(guest)
  })

  const timed = async <T>(f: () => Promise<T>): Promise<T> => {
    const t0 = Date.now()
    const r = await f()
    expect(Date.now() - t0).toBeLessThan(GUARD_MS)
    return r
  }

  it('read_file refuses a FIFO, a socket and a symlink to a FIFO at once', async () => {
    for (const path of ['pipe', 'sub/pipe.txt', 'sock.txt', 'pipe-link.txt']) {
      const r = await timed(() => runTool('read_file', { path }, ctx))
      expect(r.isError, path).toBe(true)
      expect(r.output).toMatch(/not a regular file/)
    }
  })

  it('the agent opens only regular files, non-blocking and without following a final link', async () => {
    await expect(timed(() => guest.read(join(repo, 'pipe')))).rejects.toMatchObject({ code: 'ESPECIAL', message: expect.stringMatching(/is a FIFO \(named pipe\), not a regular file/) })
    await expect(timed(() => guest.read(join(repo, 'sock.txt')))).rejects.toMatchObject({ code: 'ESPECIAL', message: expect.stringMatching(/is a socket/) })
    await expect(timed(() => guest.read(join(repo, 'pipe-link.txt')))).rejects.toMatchObject({ code: 'ESPECIAL', message: expect.stringMatching(/symbolic link/) })
    await expect(timed(() => guest.read(join(repo, 'sub')))).rejects.toMatchObject({ code: 'EISDIR' })
    // The agent's write never replaces a FIFO or socket either (a swap after the tool's stat).
    await expect(timed(() => guest.write(join(repo, 'pipe'), Buffer.from('x')))).rejects.toMatchObject({ code: 'ESPECIAL' })
    await expect(timed(() => guest.write(join(repo, 'sock.txt'), Buffer.from('x')))).rejects.toMatchObject({ code: 'ESPECIAL' })
    // The model-facing text for the agent's refusal (a FIFO swapped in after the tool's stat).
    const r = await guest.read(join(repo, 'pipe')).catch((e: unknown) => e)
    const { rethrowGuestError } = await import('./guest-errors')
    expect(() => rethrowGuestError(r, 'pipe')).toThrow(/pipe is not a regular file \(a FIFO \(named pipe\)\); the file tools only read and write regular files/)
  })

  it('grep over a tree holding FIFOs and sockets finishes, and grep on one by name is refused', async () => {
    const all = await timed(() => runTool('grep', { pattern: 'needle' }, ctx))
    expect(all.isError).toBe(false)
    expect(all.output.split('\n\n')[0]?.split('\n')).toEqual(['a.txt:1:needle in a', 'sub/b.txt:1:needle in b'])
    const glob = await timed(() => runTool('grep', { pattern: 'needle', glob: '*.txt' }, ctx))
    expect(glob.output).toMatch(/sub\/b\.txt:1:needle in b/)
    for (const path of ['pipe', 'sub/pipe.txt', 'sock.txt', 'pipe-link.txt']) {
      const r = await timed(() => runTool('grep', { pattern: 'x', path }, ctx))
      expect(r.isError, path).toBe(true)
      expect(r.output).toMatch(/not a regular file or directory/)
    }
  })

  it('glob lists names without opening special files', async () => {
    const r = await timed(() => runTool('glob', { pattern: '**/*.txt' }, ctx))
    expect(r.isError).toBe(false)
    expect(r.output).toMatch(/^a\.txt\n/)
    expect(r.output).toMatch(/sub\/b\.txt/)
    const fifo = await timed(() => runTool('glob', { pattern: '*', path: 'pipe' }, ctx))
    expect(fifo.output).toMatch(/not a directory/)
  })

  it('edit_file and write_file refuse a FIFO without blocking', async () => {
    const e = await timed(() => runTool('edit_file', { path: 'pipe', old_string: 'a', new_string: 'b' }, ctx))
    expect(e.output).toMatch(/not a regular file/)
    const w = await timed(() => runTool('write_file', { path: 'sub/pipe.txt', content: 'x' }, ctx))
    expect(w.output).toMatch(/not a regular file/)
  })
})
