// Issue 8.1: nothing the model does in the guest makes the host's git run code later. Through the
// session service with a real Docker guest and the scripted model server, the model's bash and
// write_file calls try core.fsmonitor, core.hooksPath, a pre-commit hook, .git/info/attributes and
// swapping .git away; each is refused with a note the model can act on, a host-side `git status`
// run as the repository owner creates no proof file, and git keeps working for the agent. The
// turn-end watch lists changed host-run files (.envrc, package.json scripts, a nested .git).
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import { createSessionService, type SessionService } from '../../src/main/session'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { SandboxPolicy } from '../../src/shared/sandbox'
import { ensureAgentBundle, makeTestRepo, TEST_REPO_GID, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { tempDir } from '../support/temp-dir'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'

type Finished = Extract<SessionEvent, { type: 'tool_call_finished' }>

/** Run git on the HOST as the repository owner (the user whose `git status` the attack targets). */
function hostGit(repo: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const asOwner = process.getuid?.() === 0 ? { uid: TEST_REPO_UID, gid: TEST_REPO_GID } : {}
  const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1' }, timeout: 20_000, ...asOwner })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe.skipIf(skipWithoutDocker())('the git guard (real guest, session service)', () => {
  let server: ScriptedModelServer
  let service: SessionService
  const script: ScriptStep[] = []
  const events: EventEnvelope[] = []
  const proof = join(tmpdir(), `cortex-proof-${randomBytes(4).toString('hex')}`)

  beforeAll(async () => {
    server = await startScriptedModelServer(script)
    service = await createSessionService({
      dataDir: tempDir('cortex-gitguard-home-'),
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' } })
    })
    service.onEvent((e) => events.push(e))
  }, 120_000)
  afterAll(async () => {
    await service?.shutdown()
    await server?.close()
    rmSync(proof, { force: true })
  })

  const open = async (repo: string, sandbox: SandboxPolicy = 'workspace-write'): Promise<string> => (await service.openSession({ repo, sandbox })).id
  /** One turn: the model makes `calls` (one step), then says done. Returns the turn's events. */
  const turn = async (sessionId: string, calls: ScriptStep['toolCalls']): Promise<SessionEvent[]> => {
    script.push({ toolCalls: calls }, { text: 'done' })
    const from = events.length
    await service.submit({ sessionId, op: { type: 'user_message', text: 'go' } })
    await service.idle(sessionId)
    return events.slice(from).filter((e) => e.sessionId === sessionId).map((e) => e.event)
  }
  const results = (evs: SessionEvent[]): Finished[] => evs.filter((e): e is Finished => e.type === 'tool_call_finished')
  const bash = (command: string) => ({ name: 'bash', args: { command } })

  it('host git honours core.fsmonitor (the attack is real, so this test can fail)', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const control = `${proof}-control`
    const r = hostGit(repo, ['-c', `core.fsmonitor=touch ${control}; false`, 'status', '--porcelain'])
    expect(r.status, r.stderr).toBe(0)
    expect(existsSync(control)).toBe(true)
    rmSync(control, { force: true })
  })

  for (const policy of ['workspace-write', 'network', 'read-only'] as const) {
    it(`under ${policy}: fsmonitor, hooksPath, a hook, info/attributes and a swapped .git are refused; host git status runs nothing`, async () => {
      const repo = await makeTestRepo({ 'a.txt': 'a\n' })
      const configBefore = readFileSync(join(repo, '.git', 'config'), 'utf8')
      const id = await open(repo, policy)
      const attack = [
        `git config core.fsmonitor "touch ${proof}"; echo "rc1=$?"`,
        `git config core.hooksPath /tmp/hooks; echo "rc2=$?"`,
        `printf '#!/bin/sh\\ntouch ${proof}\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; echo "rc3=$?"`,
        `echo '* filter=evil' >> .git/info/attributes; echo "rc4=$?"`,
        `mv .git .git-old; echo "rc5=$?"`,
        `rm -rf .git/hooks; echo "rc6=$?"`
      ].join('\n')
      const evs = await turn(id, [bash(attack), { name: 'write_file', args: { path: '.git/hooks/post-checkout', content: `#!/bin/sh\ntouch ${proof}\n` } }])
      const [b, w] = results(evs)
      expect(b?.result).toMatch(/rc1=[1-9]/)
      expect(b?.result).toMatch(/rc2=[1-9]/)
      expect(b?.result).toMatch(/rc3=[1-9]/)
      expect(b?.result).toMatch(/rc4=[1-9]/)
      expect(b?.result).toMatch(/rc5=[1-9]/)
      expect(b?.result).toMatch(/rc6=[1-9]/)
      if (policy !== 'read-only') {
        expect(b?.result).toContain("read-only in the guest for the host's safety")
        expect(w?.result).toContain('ask the user to run that git configuration on the host')
      }
      expect(w?.isError).toBe(true)
      // the host is untouched
      expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toBe(configBefore)
      expect(existsSync(join(repo, '.git', 'hooks', 'pre-commit'))).toBe(false)
      expect(existsSync(join(repo, '.git', 'hooks', 'post-checkout'))).toBe(false)
      expect(existsSync(join(repo, '.git-old'))).toBe(false)
      expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).not.toContain('evil')
      expect(existsSync(join(repo, '.git', 'info', 'attributes'))).toBe(false)
      const st = hostGit(repo, ['status', '--porcelain'])
      expect(st.status, st.stderr).toBe(0)
      const c = hostGit(repo, ['-c', 'user.name=u', '-c', 'user.email=u@x', 'commit', '-q', '--allow-empty', '-m', 'host'])
      expect(c.status, c.stderr).toBe(0)
      expect(existsSync(proof)).toBe(false)
      await service.closeSession({ sessionId: id })
    }, 120_000)
  }

  it('git keeps working for the agent: status, add, commit, branch, log, diff', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const id = await open(repo)
    const cmd = [
      'set -e',
      'git config --global user.name Agent && git config --global user.email agent@cortex.invalid',
      'echo b > b.txt && echo a2 >> a.txt',
      'git status --porcelain',
      'git diff --stat',
      'git add b.txt a.txt && git commit -q -m "agent commit"',
      'git branch feature && git switch -q feature && git switch -q main',
      'git log --oneline | head -3',
      'git diff HEAD~1 --stat',
      'echo ALL-OK'
    ].join('\n')
    const [r] = results(await turn(id, [bash(cmd)]))
    expect(r?.result).toContain('ALL-OK')
    expect(r?.result).toContain('agent commit')
    const log = hostGit(repo, ['log', '--oneline', '--all'])
    expect(log.stdout).toContain('agent commit')
    expect(hostGit(repo, ['branch', '--list', 'feature']).stdout).toContain('feature')
    await service.closeSession({ sessionId: id })
  }, 120_000)

  it('a folder without .git: git init is refused in the guest, and the placeholder goes with the guest', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' }, { git: false })
    const id = await open(repo)
    const [r] = results(await turn(id, [bash(`git init -q; echo "rc=$?"; mkdir -p .git/hooks; echo "rc2=$?"`)]))
    expect(r?.result).toMatch(/rc=[1-9]/)
    expect(r?.result).toMatch(/rc2=[1-9]/)
    expect(r?.result).toContain("read-only in the guest for the host's safety")
    await service.closeSession({ sessionId: id })
    expect(existsSync(join(repo, '.git'))).toBe(false)
  }, 120_000)

  it('two guests of a folder without .git: the placeholder stays while either runs, then goes', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' }, { git: false })
    const first = await open(repo)
    const second = await open(repo)
    const tryInit = `git init -q; echo "rc=$?"`
    expect(results(await turn(first, [bash(tryInit)]))[0]?.result).toMatch(/rc=[1-9]/)
    await service.closeSession({ sessionId: first })
    expect(existsSync(join(repo, '.git'))).toBe(true)
    expect(results(await turn(second, [bash(tryInit)]))[0]?.result).toMatch(/rc=[1-9]/)
    expect(existsSync(join(repo, '.git', 'HEAD'))).toBe(false)
    await service.closeSession({ sessionId: second })
    expect(existsSync(join(repo, '.git'))).toBe(false)
  }, 120_000)

  it('a .git pointer file cannot be re-pointed', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    // move the gitdir inside the repository and point .git at it (as `git init --separate-git-dir` does)
    spawnSync('mv', [join(repo, '.git'), join(repo, 'gitdir')])
    writeFileSync(join(repo, '.git'), 'gitdir: gitdir\n')
    spawnSync('chown', ['-h', `${TEST_REPO_UID}:${TEST_REPO_GID}`, join(repo, '.git')])
    const id = await open(repo)
    const [r] = results(
      await turn(id, [bash(`echo 'gitdir: evil' > .git; echo "rc=$?"; git config core.fsmonitor "touch ${proof}"; echo "rc2=$?"; git status --porcelain; echo "rc3=$?"`)])
    )
    expect(r?.result).toMatch(/rc=[1-9]/)
    expect(r?.result).toMatch(/rc2=[1-9]/)
    expect(r?.result).toContain('rc3=0')
    expect(readFileSync(join(repo, '.git'), 'utf8')).toBe('gitdir: gitdir\n')
    expect(hostGit(repo, ['status', '--porcelain']).status).toBe(0)
    expect(existsSync(proof)).toBe(false)
    await service.closeSession({ sessionId: id })
  }, 120_000)

  it('a submodule keeps working; no new submodule or worktree gitdir can be planted', async () => {
    // built as this process's user, then given to the repository owner
    const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
    const repo = await makeTestRepo({ 'a.txt': 'a\n' }, self)
    const lib = await makeTestRepo({ 'lib.txt': 'lib\n' }, self)
    const git = (args: string[]) => spawnSync('git', ['-c', 'protocol.file.allow=always', '-c', 'user.name=T', '-c', 'user.email=t@x', ...args], { cwd: repo, encoding: 'utf8' })
    const added = git(['submodule', 'add', '-q', lib, 'lib'])
    expect(added.status, added.stderr).toBe(0)
    expect(git(['commit', '-q', '-m', 'add lib']).status).toBe(0)
    spawnSync('chown', ['-R', `${TEST_REPO_UID}:${TEST_REPO_GID}`, repo])
    const id = await open(repo)
    const cmd = [
      'git config --global user.name Agent; git config --global user.email agent@cortex.invalid',
      'mkdir -p .git/modules/evil; echo "rc1=$?"',
      'mkdir -p .git/worktrees/x; echo "rc2=$?"',
      `git -C lib config core.fsmonitor "touch ${proof}"; echo "rc3=$?"`,
      "echo 'gitdir: ../evil' > lib/.git; echo \"rc4=$?\"",
      'mv lib lib2; echo "rc5=$?"',
      'cd lib && echo more >> lib.txt && git commit -qam "in submodule" && cd .. && git add lib && git commit -qm "bump lib" && echo SUB-OK',
      'git status --porcelain; git submodule status'
    ].join('\n')
    const [r] = results(await turn(id, [bash(cmd)]))
    for (const k of ['rc1', 'rc2', 'rc3', 'rc4', 'rc5']) expect(r?.result, k).toMatch(new RegExp(`${k}=[1-9]`))
    expect(r?.result).toContain('SUB-OK')
    expect(existsSync(join(repo, '.git', 'modules', 'evil'))).toBe(false)
    expect(existsSync(join(repo, '.git', 'worktrees', 'x'))).toBe(false)
    // the host's git status recurses into the submodule and runs nothing
    const st = hostGit(repo, ['status', '--porcelain'])
    expect(st.status, st.stderr).toBe(0)
    expect(hostGit(repo, ['log', '--oneline', '-1']).stdout).toContain('bump lib')
    expect(existsSync(proof)).toBe(false)
    await service.closeSession({ sessionId: id })
  }, 120_000)

  it('changes to files host tools run without asking are listed at the end of the turn', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n', 'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"true"}}\n' })
    const id = await open(repo)
    const quiet = await turn(id, [bash('echo hi > notes.txt; node -e \'const f="package.json";const p=JSON.parse(require("fs").readFileSync(f));p.version="1.0.1";require("fs").writeFileSync(f,JSON.stringify(p))\'')])
    expect(quiet.some((e) => e.type === 'host_exec_warning')).toBe(false)
    const evs = await turn(id, [
      bash(
        [
          'echo "touch /tmp/x" > .envrc',
          'mkdir -p .vscode && echo "{}" > .vscode/tasks.json',
          'node -e \'const f="package.json";const p=JSON.parse(require("fs").readFileSync(f));p.scripts.postinstall="touch /tmp/x";require("fs").writeFileSync(f,JSON.stringify(p))\'',
          'mkdir -p sub && cd sub && git init -q && git config core.fsmonitor "touch /tmp/x"'
        ].join('\n')
      )
    ])
    const warning = evs.find((e) => e.type === 'host_exec_warning')
    expect(warning).toBeDefined()
    const paths = warning && warning.type === 'host_exec_warning' ? warning.paths : []
    expect(paths).toEqual(expect.arrayContaining(['.envrc (added)', '.vscode (added)', '.vscode/tasks.json (added)', 'package.json (modified)', 'sub/.git/config → sub/.git/config.cortex-disabled (disabled)']))
    // reported before the turn ends
    expect(evs.findIndex((e) => e.type === 'host_exec_warning')).toBeLessThan(evs.findIndex((e) => e.type === 'turn_ended'))
    await service.closeSession({ sessionId: id })
  }, 120_000)

  it('writes through a symlinked .vscode and files editors run on open are listed at the end of the turn', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const id = await open(repo)
    const first = await turn(id, [bash('mkdir -p editor-cfg && ln -s editor-cfg .vscode')])
    expect(first.some((e) => e.type === 'host_exec_warning')).toBe(true)
    const evs = await turn(id, [
      bash(
        [
          `echo '{"tasks":[{"label":"x","command":"touch /tmp/x","runOptions":{"runOn":"folderOpen"}}]}' > editor-cfg/tasks.json`,
          `echo 'require("child_process").execSync("touch /tmp/x")' > eslint.config.js`,
          `echo '{"folders":[{"path":"."}]}' > app.code-workspace`,
          'echo "pre-commit: {}" > lefthook.yml'
        ].join('\n')
      )
    ])
    const warning = evs.find((e) => e.type === 'host_exec_warning')
    const paths = warning && warning.type === 'host_exec_warning' ? warning.paths : []
    expect(paths).toEqual(expect.arrayContaining(['.vscode/tasks.json (added)', 'eslint.config.js (added)', 'app.code-workspace (added)', 'lefthook.yml (added)']))
    await service.closeSession({ sessionId: id })
  }, 120_000)
})
