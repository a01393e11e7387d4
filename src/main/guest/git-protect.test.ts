// The git guard's decisions on the host side (the guest side is test/security/git-guard.test.ts):
// which paths get read-only binds, which are pinned, what is created, what is refused; and the
// container spec carrying them and the seccomp profile.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, rmdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { guestContainerSpec, guestSeccompProfile } from './container-spec'
import { gitGuardMounts, removeGuardPlaceholders } from './git-protect'

const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function gitRepo(init = true): string {
  const d = mkdtempSync(join(tmpdir(), 'cortex-guard-'))
  dirs.push(d)
  if (init) execFileSync('git', ['init', '-q', d])
  return d
}
const ro = (g: ReturnType<typeof gitGuardMounts>, repo: string): string[] => g.mounts.filter((m) => m.readOnly).map((m) => m.path.slice(repo.length + 1))
const rw = (g: ReturnType<typeof gitGuardMounts>, repo: string): string[] => g.mounts.filter((m) => !m.readOnly).map((m) => m.path.slice(repo.length + 1))

describe('gitGuardMounts', () => {
  it('makes config, hooks and info read-only and pins .git; creates missing ones', () => {
    const repo = gitRepo()
    rmSync(join(repo, '.git', 'hooks'), { recursive: true })
    const g = gitGuardMounts(repo, owner, 'workspace-write')
    expect(ro(g, repo)).toEqual(['.git/config', '.git/hooks', '.git/info', '.git/modules', '.git/worktrees'])
    expect(rw(g, repo)).toEqual(['.git'])
    expect(existsSync(join(repo, '.git', 'hooks'))).toBe(true)
    expect(existsSync(join(repo, '.git', 'modules'))).toBe(true)
    // made only as bind targets: the last guest removes them, so the user's .git ends as it began
    expect(g.createdEmptyDirs).toEqual([join(repo, '.git', 'modules'), join(repo, '.git', 'worktrees')])
  })

  it('adopts empty modules/ and worktrees/ a killed host left behind, so the next last guest removes them', () => {
    const repo = gitRepo()
    // what a kill -9 of the host leaves: the placeholders, never removed
    mkdirSync(join(repo, '.git', 'modules'))
    mkdirSync(join(repo, '.git', 'worktrees'))
    const g = gitGuardMounts(repo, owner, 'workspace-write')
    expect(g.createdEmptyDirs).toEqual([join(repo, '.git', 'modules'), join(repo, '.git', 'worktrees')])
    removeGuardPlaceholders(g)
    expect(existsSync(join(repo, '.git', 'modules'))).toBe(false)
    expect(existsSync(join(repo, '.git', 'worktrees'))).toBe(false)
  })

  it('covers submodule gitdirs and worktree configs; no new ones can be planted, the existing ones stay writable', () => {
    const repo = gitRepo()
    for (const m of ['modules/lib', 'modules/nested/deep']) {
      mkdirSync(join(repo, '.git', m, 'hooks'), { recursive: true })
      writeFileSync(join(repo, '.git', m, 'HEAD'), 'ref: refs/heads/main\n')
      writeFileSync(join(repo, '.git', m, 'config'), '')
    }
    mkdirSync(join(repo, '.git', 'worktrees', 'wt'), { recursive: true })
    writeFileSync(join(repo, '.git', 'worktrees', 'wt', 'commondir'), '../..\n')
    mkdirSync(join(repo, 'lib'))
    writeFileSync(join(repo, 'lib', '.git'), 'gitdir: ../.git/modules/lib\n')
    writeFileSync(join(repo, '.gitmodules'), '[submodule "lib"]\n\tpath = lib\n\turl = ./x\n')
    const g = gitGuardMounts(repo, owner, 'network')
    expect(ro(g, repo)).toEqual(
      expect.arrayContaining([
        '.git/modules', '.git/worktrees', '.git/modules/lib/config', '.git/modules/lib/hooks', '.git/modules/nested/deep/config',
        '.git/worktrees/wt/commondir', 'lib/.git'
      ])
    )
    expect(rw(g, repo).sort()).toEqual(['.git', '.git/modules/lib', '.git/modules/nested/deep', '.git/worktrees/wt', 'lib'])
  })

  it('a folder without .git gets an empty read-only .git, removed afterwards while still empty', () => {
    const repo = gitRepo(false)
    const g = gitGuardMounts(repo, owner, 'workspace-write')
    expect(g.mounts).toEqual([{ path: join(repo, '.git'), readOnly: true }])
    expect(g.createdEmptyDirs).toEqual([join(repo, '.git')])
    // a second guest of the same folder sees the placeholder: read-only as it is, nothing created in
    // it; whichever guest goes last removes it
    const g2 = gitGuardMounts(repo, owner, 'workspace-write')
    expect(g2.mounts).toEqual([{ path: join(repo, '.git'), readOnly: true }])
    expect(g2.createdEmptyDirs).toEqual([join(repo, '.git')])
    removeGuardPlaceholders(g)
    expect(existsSync(join(repo, '.git'))).toBe(false)
  })

  it('a .git pointer file is read-only and its gitdir inside the repository is protected', () => {
    const repo = gitRepo()
    renameSync(join(repo, '.git'), join(repo, 'gd'))
    writeFileSync(join(repo, '.git'), 'gitdir: gd\n')
    const g = gitGuardMounts(repo, owner, 'workspace-write')
    expect(ro(g, repo)).toEqual(['.git', 'gd/config', 'gd/hooks', 'gd/info', 'gd/modules', 'gd/worktrees'])
    expect(rw(g, repo)).toEqual(['gd'])
  })

  it('refuses a symlinked control path (a bind would follow it) and does nothing under read-only', () => {
    const repo = gitRepo()
    const elsewhere = gitRepo(false)
    rmSync(join(repo, '.git', 'hooks'), { recursive: true })
    symlinkSync(elsewhere, join(repo, '.git', 'hooks'))
    expect(() => gitGuardMounts(repo, owner, 'workspace-write')).toThrow(expect.objectContaining({ code: 'repo_invalid', message: expect.stringMatching(/hooks is a symbolic link/) }))
    expect(gitGuardMounts(repo, owner, 'read-only').mounts).toEqual([])
    rmSync(join(repo, '.git', 'hooks'))
    rmdirSync(elsewhere)
  })

  it.skipIf(process.getuid?.() === 0)('refuses to start unprotected when a missing control path cannot be created', () => {
    const repo = gitRepo()
    rmSync(join(repo, '.git', 'hooks'), { recursive: true })
    chmodSync(join(repo, '.git'), 0o555)
    try {
      expect(() => gitGuardMounts(repo, owner, 'workspace-write')).toThrow(expect.objectContaining({ code: 'repo_invalid', message: expect.stringMatching(/cannot prepare .*hooks/) }))
    } finally {
      chmodSync(join(repo, '.git'), 0o755)
    }
  })
})

describe('container spec', () => {
  it('carries the guard binds after the repository bind and the setuid-refusing seccomp profile', () => {
    const repo = gitRepo()
    const g = gitGuardMounts(repo, owner, 'workspace-write')
    const spec = guestContainerSpec({
      sessionId: 's', repo, image: 'img', agentPath: '/a.cjs', uid: 1, gid: 1, etc: { passwd: '/p', group: '/g' }, policy: 'workspace-write', guardMounts: g.mounts
    })
    expect(spec.HostConfig.Mounts[0]).toMatchObject({ Source: repo, Target: repo, ReadOnly: false })
    expect(spec.HostConfig.Mounts).toContainEqual({ Type: 'bind', Source: join(repo, '.git', 'config'), Target: join(repo, '.git', 'config'), ReadOnly: true })
    const seccomp = spec.HostConfig.SecurityOpt.find((o) => o.startsWith('seccomp='))
    expect(seccomp).toBe(`seccomp=${guestSeccompProfile()}`)
    const profile = JSON.parse(guestSeccompProfile()) as { syscalls: Array<{ names: string[]; action: string; args?: Array<{ value: number; op: string }> }> }
    // chmod is never allowed unconditionally: only with a mode free of setuid/setgid
    const chmodRules = profile.syscalls.filter((r) => r.names.includes('chmod'))
    expect(chmodRules).toEqual([expect.objectContaining({ action: 'SCMP_ACT_ALLOW', args: [expect.objectContaining({ value: 0o6000, op: 'SCMP_CMP_MASKED_EQ' })] })])
  })

  it('the committed profile is what make-seccomp.mjs generates', () => {
    expect(() => execFileSync(process.execPath, [join(__dirname, '../../../resources/guest/make-seccomp.mjs'), '--check'])).not.toThrow()
  })
})
