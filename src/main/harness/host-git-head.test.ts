// The branch read on the host from .git/HEAD (ADR 0026): a branch, a detached HEAD, and every case
// only git can tell — no .git, .git a file (worktree) or a link, HEAD a link (which could point at a
// host-only file), HEAD a FIFO (which must not block), odd contents — answer `unknown`.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseHead, readHeadOnHost } from './host-git-head'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A folder with `.git/HEAD` holding `head` (no HEAD when null). */
function repoWith(head: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-head-'))
  dirs.push(dir)
  mkdirSync(join(dir, '.git'))
  if (head !== null) writeFileSync(join(dir, '.git', 'HEAD'), head)
  return dir
}

describe('parseHead', () => {
  it('reads a branch and a detached HEAD; anything else is unknown', () => {
    expect(parseHead('ref: refs/heads/feature/x\n')).toEqual({ kind: 'branch', branch: 'feature/x' })
    expect(parseHead('0123456789abcdef0123456789abcdef01234567\n')).toEqual({ kind: 'branch', branch: 'detached at 0123456' })
    expect(parseHead('ref: refs/remotes/origin/main\n')).toEqual({ kind: 'unknown' })
    expect(parseHead('ref: refs/heads/a b\n')).toEqual({ kind: 'unknown' })
    expect(parseHead('')).toEqual({ kind: 'unknown' })
  })
})

describe('readHeadOnHost', () => {
  it('gives the branch of a plain repository', async () => {
    expect(await readHeadOnHost(repoWith('ref: refs/heads/main\n'))).toEqual({ kind: 'branch', branch: 'main' })
  })

  it('answers unknown for no .git, a .git file, a linked .git, a linked HEAD, a missing HEAD and a FIFO HEAD', async () => {
    const none = mkdtempSync(join(tmpdir(), 'cortex-head-'))
    dirs.push(none)
    expect(await readHeadOnHost(none)).toEqual({ kind: 'unknown' })

    const file = mkdtempSync(join(tmpdir(), 'cortex-head-'))
    dirs.push(file)
    writeFileSync(join(file, '.git'), 'gitdir: /elsewhere\n')
    expect(await readHeadOnHost(file)).toEqual({ kind: 'unknown' })

    const real = repoWith('ref: refs/heads/main\n')
    const linkedGit = mkdtempSync(join(tmpdir(), 'cortex-head-'))
    dirs.push(linkedGit)
    symlinkSync(join(real, '.git'), join(linkedGit, '.git'))
    expect(await readHeadOnHost(linkedGit)).toEqual({ kind: 'unknown' })

    const secret = mkdtempSync(join(tmpdir(), 'cortex-secret-'))
    dirs.push(secret)
    writeFileSync(join(secret, 'token'), 'ref: refs/heads/SECRET\n')
    const linkedHead = repoWith(null)
    symlinkSync(join(secret, 'token'), join(linkedHead, '.git', 'HEAD'))
    expect(await readHeadOnHost(linkedHead)).toEqual({ kind: 'unknown' })

    expect(await readHeadOnHost(repoWith(null))).toEqual({ kind: 'unknown' })

    const fifo = repoWith(null)
    execFileSync('mkfifo', [join(fifo, '.git', 'HEAD')])
    expect(await readHeadOnHost(fifo)).toEqual({ kind: 'unknown' }) // never opened: no writer, and it must not block
  })
})
