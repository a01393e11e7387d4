// The git-arming scan and disarm on real folders (no Docker): what counts as a repository, what is
// moved aside and what is left alone, a read-only folder, a pointer out of the repository, and an
// incomplete walk reported as unknown rather than as "nothing found".
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { disarmGitdirs, scanGitdirs } from './git-arming'
import { watchGitArming } from './git-arming-watch'
import { withDisarmed } from './git-arming-text'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function tree(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'cortex-arming-'))
  dirs.push(d)
  for (const [rel, text] of Object.entries(files)) write(d, rel, text)
  return d
}
function write(d: string, rel: string, text: string): void {
  mkdirSync(join(d, rel, '..'), { recursive: true })
  if (rel.endsWith('/')) mkdirSync(join(d, rel), { recursive: true })
  else writeFileSync(join(d, rel), text)
}
const gitdir = (at: string, config = '[core]\n'): Record<string, string> => ({
  [`${at}HEAD`]: 'ref: refs/heads/main\n',
  [`${at}objects/`]: '',
  [`${at}refs/`]: '',
  [`${at}config`]: config
})

describe('git arming', () => {
  it('finds repositories by structure, by .git folder, file and symlink; not lookalikes', async () => {
    const d = tree({ ...gitdir('.git/'), ...gitdir('a/b/'), ...gitdir('n/.git/'), ...gitdir('g/'), 'p/.git': 'gitdir: ../g\n', 'src/HEAD': 'x', 'src/config': 'x' })
    mkdirSync(join(d, 'q'))
    symlinkSync('../a/b', join(d, 'q/.git'))
    const s = await scanGitdirs(d)
    expect([...s.gitdirs.keys()].sort()).toEqual(['a/b', 'g', 'n/.git'])
    expect(s.incomplete).toBe(false)
  })

  it('moves aside the control files of a new or changed repository, and nothing else', async () => {
    const d = tree({ ...gitdir('old/'), ...gitdir('kept/'), 'a.txt': 'a' })
    const w = await watchGitArming(d)
    write(d, 'old/config', '[core]\n\tfsmonitor = touch /tmp/x\n')
    for (const [rel, text] of Object.entries(gitdir('new/.git/'))) write(d, rel, text)
    write(d, 'new/.git/hooks/pre-commit', 'touch /tmp/x')
    const r = await w.check()
    expect(r.renamed.sort()).toEqual(['new/.git/config → new/.git/config.cortex-disabled', 'new/.git/hooks → new/.git/hooks.cortex-disabled', 'old/config → old/config.cortex-disabled'])
    expect(readFileSync(join(d, 'old/config.cortex-disabled'), 'utf8')).toContain('fsmonitor')
    expect(existsSync(join(d, 'kept/config'))).toBe(true)
    // armed again: moved aside again, under a free name
    write(d, 'old/config', '[core]\n\tfsmonitor = touch /tmp/y\n')
    expect((await w.check()).renamed).toEqual(['old/config → old/config.cortex-disabled-2'])
    expect(w.summary().renamed).toHaveLength(4)
  })

  it('a repository in a folder the guest made read-only is still disarmed', async () => {
    const d = tree({})
    const before = await scanGitdirs(d)
    for (const [rel, text] of Object.entries(gitdir('ro/'))) write(d, rel, text)
    chmodSync(join(d, 'ro'), 0o555)
    const r = await disarmGitdirs(d, before, await scanGitdirs(d))
    expect(r).toEqual({ renamed: ['ro/config → ro/config.cortex-disabled'], failed: [] })
  })

  it('a new .git pointer: its target inside the root .git is disarmed, one outside the repository is moved aside itself; a new root commondir too', async () => {
    const d = tree({ ...gitdir('.git/'), 'sub/a.txt': 'a' })
    const outside = tree(gitdir(''))
    const before = await scanGitdirs(d)
    write(d, 'sub/.git', `gitdir: ${outside}\n`)
    write(d, '.git/commondir', '../common\n')
    // a gitdir hidden where the walk does not go (inside the root .git), named by a pointer
    for (const [rel, text] of Object.entries(gitdir('.git/evil/'))) write(d, rel, text)
    write(d, 'x/.git', 'gitdir: ../.git/evil\n')
    const r = await disarmGitdirs(d, before, await scanGitdirs(d))
    expect(r.renamed.sort()).toEqual(['.git/commondir → .git/commondir.cortex-disabled', '.git/evil/config → .git/evil/config.cortex-disabled', 'sub/.git → sub/.git.cortex-disabled'])
    expect(existsSync(join(outside, 'config'))).toBe(true)
  })

  it('the root folder counts as a repository only when its .git is no gitdir (none, or an empty placeholder)', async () => {
    const withGit = tree({ ...gitdir('.git/'), ...gitdir('') })
    expect([...(await scanGitdirs(withGit)).gitdirs.keys()]).toEqual([])
    const without = tree({ ...gitdir('') })
    expect([...(await scanGitdirs(without)).gitdirs.keys()]).toEqual([''])
    // an empty .git (the placeholder a folder without a repository gets) is no gitdir: git goes on to the root
    const placeholder = tree({ '.git/': '', ...gitdir('') })
    expect([...(await scanGitdirs(placeholder)).gitdirs.keys()]).toEqual([''])
  })

  it('the next turn compares with what the last one left: a change between turns is disarmed at its start', async () => {
    const d = tree({ ...gitdir('user/') })
    const memory = { last: null }
    const t1 = await watchGitArming(d, memory)
    for (const [rel, text] of Object.entries(gitdir('late/'))) write(d, rel, text)
    await t1.check()
    expect(existsSync(join(d, 'late/config.cortex-disabled'))).toBe(true)
    // between turns: the same config written again, and a new repository
    write(d, 'late/config', '[core]\n')
    for (const [rel, text] of Object.entries(gitdir('later/'))) write(d, rel, text)
    const t2 = await watchGitArming(d, memory)
    expect(t2.summary().renamed.sort()).toEqual(['late/config → late/config.cortex-disabled-2', 'later/config → later/config.cortex-disabled'])
    expect(existsSync(join(d, 'user/config'))).toBe(true)
  })

  it('a turn whose checks were all cut short (Stop) leaves its changes to the next turn', async () => {
    const d = tree({ 'a.txt': 'a' })
    const memory = { last: null }
    await (await watchGitArming(d, memory)).check() // a complete check: the session's baseline
    const t1 = await watchGitArming(d, memory)
    for (const [rel, text] of Object.entries(gitdir('made/'))) write(d, rel, text)
    expect((await t1.check(AbortSignal.abort())).renamed).toEqual([])
    const t2 = await watchGitArming(d, memory)
    expect(t2.summary().renamed).toEqual(['made/config → made/config.cortex-disabled'])
  })

  it.skipIf(process.getuid?.() !== 0)('a folder the user may not list (git still reaches inside by name) makes the walk unknown', () => {
    // run as an ordinary user: root lists every folder
    const d = tree({ ...gitdir('locked/sub/') })
    chownSync(d, 4242, 4242)
    chmodSync(join(d, 'locked'), 0o311)
    const script = `import('${join(__dirname, 'git-arming.ts')}').then(async (m) => { const s = await (m.scanGitdirs ?? m.default.scanGitdirs)(${JSON.stringify(d)}); process.stdout.write(JSON.stringify({ incomplete: s.incomplete, found: [...s.gitdirs.keys()] })) })`
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { uid: 4242, gid: 4242, encoding: 'utf8', cwd: join(__dirname, '../../..'), timeout: 60_000 })
    expect(JSON.parse(r.stdout || 'null'), r.stderr).toEqual({ incomplete: true, found: [] })
  })

  it('an incomplete walk is reported as unknown, even when nothing was found', async () => {
    const d = tree({ 'a/b/c.txt': 'x' })
    const s = await scanGitdirs(d, { deadlineMs: -1 })
    expect(s.incomplete).toBe(true)
    const warning = withDisarmed(null, { renamed: [], failed: [], incomplete: true })
    expect(warning?.message).toMatch(/could not search the whole repository/)
    expect(withDisarmed(null, { renamed: [], failed: [], incomplete: false })).toBeNull()
  })
})
