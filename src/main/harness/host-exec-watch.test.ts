// The turn-end watch of files host tools run without asking: what it lists, what it ignores, and
// that a FIFO or a symlink in a watched place never blocks it or leads it out of the repository.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { diffHostExec, hostExecWarning, snapshotHostExec, watchHostExec } from './host-exec-watch'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function repo(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'cortex-watch-'))
  dirs.push(d)
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(d, rel, '..'), { recursive: true })
    writeFileSync(join(d, rel), text)
  }
  return d
}
const write = (d: string, rel: string, text: string): void => {
  mkdirSync(join(d, rel, '..'), { recursive: true })
  writeFileSync(join(d, rel), text)
}

describe('host-exec watch', () => {
  it('lists added, modified and removed host-run files, and nothing for ordinary edits', async () => {
    const d = repo({ 'package.json': '{"name":"a","version":"1.0.0","scripts":{"test":"vitest"}}', '.gitattributes': '* text=auto\n', 'src/a.ts': 'x', '.idea/workspace.xml': '<x/>' })
    const w = await watchHostExec(d)
    write(d, 'src/a.ts', 'y')
    write(d, 'package.json', '{"name":"a","version":"2.0.0","scripts":{"test":"vitest"}}') // not a script change
    expect(await (await watchHostExec(d)).finish()).toBeNull()
    expect(await w.finish()).toBeNull()

    const w2 = await watchHostExec(d)
    write(d, '.envrc', 'touch /tmp/x\n')
    write(d, '.husky/pre-commit', 'touch /tmp/x\n')
    write(d, 'package.json', '{"name":"a","scripts":{"test":"vitest","postinstall":"touch /tmp/x"}}')
    rmSync(join(d, '.gitattributes'))
    write(d, '.idea/workspace.xml', '<evil/>')
    write(d, 'deep/down/.envrc', 'x')
    const warning = await w2.finish()
    expect(warning?.paths).toEqual([
      '.envrc (added)', '.gitattributes (removed)', '.husky (added)', '.husky/pre-commit (added)', '.idea/workspace.xml (modified)',
      'deep/down/.envrc (added)', 'package.json (modified)'
    ])
    expect(warning?.message).toMatch(/tools on your machine can run without asking/)
  })

  it("names agents' extension files: .cortex/**, .claude/**, .mcp.json and .devcontainer/**", async () => {
    const d = repo({ 'a.txt': 'a', '.claude/settings.json': '{}' })
    const w = await watchHostExec(d)
    write(d, '.cortex/settings.json', '{"hooks":{}}')
    write(d, '.cortex/commands/review.md', 'review $ARGUMENTS')
    write(d, '.claude/settings.json', '{"hooks":{"Stop":[]}}')
    write(d, '.claude/agents/x.md', '---\nname: x\n---\n')
    write(d, '.mcp.json', '{"mcpServers":{}}')
    write(d, '.devcontainer/devcontainer.json', '{}')
    expect((await w.finish())?.paths).toEqual([
      '.claude/agents (added)', '.claude/agents/x.md (added)', '.claude/settings.json (modified)',
      '.cortex (added)', '.cortex/commands (added)', '.cortex/commands/review.md (added)', '.cortex/settings.json (added)',
      '.devcontainer (added)', '.devcontainer/devcontainer.json (added)', '.mcp.json (added)'
    ])
  })

  it('sees a nested repository and changes to git control files', async () => {
    const d = repo({ 'a.txt': 'a' })
    execFileSync('git', ['init', '-q', d])
    const before = await snapshotHostExec(d)
    execFileSync('git', ['-C', d, 'config', 'core.hooksPath', '/tmp/h'])
    write(d, '.git/hooks/pre-commit', '#!/bin/sh\n')
    write(d, '.git/commondir', '../evil')
    mkdirSync(join(d, 'vendor/lib'), { recursive: true })
    execFileSync('git', ['init', '-q', join(d, 'vendor/lib')])
    const paths = diffHostExec(before, await snapshotHostExec(d)).map((c) => `${c.path} ${c.change}`)
    expect(paths).toEqual(expect.arrayContaining(['.git/config modified', '.git/hooks/pre-commit added', '.git/commondir added', 'vendor/lib/.git added', 'vendor/lib/.git/config added']))
  })

  it('never opens a FIFO nor follows a symlink out of the repository', async () => {
    const d = repo({ 'a.txt': 'a' })
    const outside = repo({ 'secret.json': '{}' })
    const before = await snapshotHostExec(d)
    execFileSync('mkfifo', [join(d, '.envrc')])
    symlinkSync(outside, join(d, '.vscode'))
    const t0 = Date.now()
    const changes = diffHostExec(before, await snapshotHostExec(d))
    expect(Date.now() - t0).toBeLessThan(5000) // hang guard: a read of the FIFO would block forever
    expect(changes.map((c) => c.path)).toEqual(['.envrc', '.vscode'])
    expect(hostExecWarning(changes).paths).toEqual(['.envrc (added)', '.vscode (added)'])
  })

  it('sees writes through a watched name that links inside the repository, and files editors run on open', async () => {
    const d = repo({ 'cfg/settings.json': '{}', 'notes.txt': 'a' })
    symlinkSync('cfg', join(d, '.vscode'))
    symlinkSync('notes.txt', join(d, '.envrc'))
    execFileSync('mkfifo', [join(d, 'pipe')])
    symlinkSync('pipe', join(d, '.npmrc'))
    const before = await snapshotHostExec(d)
    write(d, 'cfg/tasks.json', '{"tasks":[{"runOptions":{"runOn":"folderOpen"},"command":"touch /tmp/x"}]}')
    write(d, 'notes.txt', 'touch /tmp/x')
    write(d, 'eslint.config.js', 'require("child_process").execSync("touch /tmp/x")')
    write(d, 'app.code-workspace', '{"tasks":{}}')
    write(d, 'lefthook.yml', 'pre-commit: {}')
    const t0 = Date.now()
    const paths = diffHostExec(before, await snapshotHostExec(d)).map((c) => `${c.path} ${c.change}`)
    expect(Date.now() - t0).toBeLessThan(5000) // hang guard: the FIFO behind .npmrc is never opened
    expect(paths).toEqual(['.envrc modified', '.vscode/tasks.json added', 'app.code-workspace added', 'eslint.config.js added', 'lefthook.yml added'])
  })

  it('says when a huge tree could not be searched completely', async () => {
    const d = repo({ 'a/b/c.txt': 'x' })
    const snap = await snapshotHostExec(d, -1)
    expect(snap.incomplete).toBe(true)
    expect(hostExecWarning([{ path: '.envrc', change: 'added' }], true).message).toMatch(/too large to search every folder/)
  })
})
