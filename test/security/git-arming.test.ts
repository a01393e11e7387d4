// Issue 16.1: the guest cannot arm the HOST's git by building a repository git finds by structure.
// Through the session service with a real Docker guest and the scripted model server, the model's
// bash makes a bare-looking folder (HEAD, objects, refs, a config with core.worktree and
// core.fsmonitor), a nested repository registered as a gitlink past 200 000 entries, a `.git` file
// and a `.git` symlink whose targets are armed in a second turn, and a new `.git/commondir`. After
// each, the host's real `git status` (at the root, in the folder, in the nested repository; safe
// env, run as the repository owner) writes no proof file, and the user is told what was moved aside.
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import { createSessionService, type SessionService } from '../../src/main/session'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { ensureAgentBundle, makeTestRepo, TEST_REPO_GID, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'

type Finished = Extract<SessionEvent, { type: 'tool_call_finished' }>
type Warning = Extract<SessionEvent, { type: 'host_exec_warning' }>

/** Run git status on the HOST in `cwd` as the repository owner, with a safe environment. */
function hostStatus(cwd: string, home: string): { status: number | null; stderr: string } {
  const asOwner = process.getuid?.() === 0 ? { uid: TEST_REPO_UID, gid: TEST_REPO_GID } : {}
  const r = spawnSync('git', ['status', '--porcelain'], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' }, timeout: 60_000, ...asOwner })
  return { status: r.status, stderr: r.stderr }
}

describe.skipIf(skipWithoutDocker())('repositories the guest builds cannot arm the host (real guest, session service)', () => {
  let server: ScriptedModelServer
  let service: SessionService
  const script: ScriptStep[] = []
  const events: EventEnvelope[] = []
  const dataDir = mkdtempSync(join(tmpdir(), 'cortex-arming-home-'))
  const home = mkdtempSync(join(tmpdir(), 'cortex-arming-userhome-'))
  const proof = join(tmpdir(), `cortex-arming-proof-${randomBytes(4).toString('hex')}`)

  beforeAll(async () => {
    server = await startScriptedModelServer(script)
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' } })
    })
    service.onEvent((e) => events.push(e))
  }, 120_000)
  afterEach(() => rmSync(proof, { force: true }))
  afterAll(async () => {
    await service?.shutdown()
    await server?.close()
    for (const d of [dataDir, home]) rmSync(d, { recursive: true, force: true })
  })

  /** One turn of one bash call; returns the call's result and the turn's warning (if any). */
  const bash = async (sessionId: string, command: string): Promise<{ result: string; warning: Warning | undefined }> => {
    script.push({ toolCalls: [{ name: 'bash', args: { command } }] }, { text: 'done' })
    const from = events.length
    await service.submit({ sessionId, op: { type: 'user_message', text: 'go' } })
    await service.idle(sessionId)
    const mine = events.slice(from).filter((e) => e.sessionId === sessionId).map((e) => e.event)
    const result = mine.find((e): e is Finished => e.type === 'tool_call_finished')?.result ?? mine.map((e) => JSON.stringify(e)).join('\n')
    return { result, warning: mine.find((e): e is Warning => e.type === 'host_exec_warning') }
  }
  /** Host `git status` in each folder succeeds or fails, but writes no proof file. */
  const expectNothingRuns = (repo: string, folders: string[]): void => {
    for (const f of folders) {
      hostStatus(join(repo, f), home)
      expect(existsSync(proof), `git status in ${f || 'the root'} ran the guest's command`).toBe(false)
    }
    const root = hostStatus(repo, home)
    expect(root.status, root.stderr).toBe(0)
  }
  const fsmonitor = `fsmonitor = \\"touch ${proof}; false\\"`
  /** A bash command making `dir` a repository by structure, armed (config with core.worktree and core.fsmonitor). */
  const makeBare = (dir: string): string =>
    `mkdir -p ${dir}/objects ${dir}/refs/heads && echo 'ref: refs/heads/main' > ${dir}/HEAD && printf "[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\t${fsmonitor}\\n" > ${dir}/config`
  /** Wait until `cond` holds, polling every 50 ms, or fail after `ms`. */
  const waitFor = async (cond: () => boolean, ms: number): Promise<void> => {
    const until = Date.now() + ms
    while (!cond()) {
      if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  const ident = '-c user.name=A -c user.email=a@cortex.invalid'

  it('a folder that is a repository by structure (HEAD, objects, refs, config with core.worktree)', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const id = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
    const { result, warning } = await bash(
      id,
      `mkdir -p tools/evil/objects tools/evil/refs/heads && cd tools/evil && echo 'ref: refs/heads/main' > HEAD && printf "[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\t${fsmonitor}\\n" > config && echo made=$?`
    )
    expect(result).toContain('made=0')
    expectNothingRuns(repo, ['tools/evil', 'tools'])
    // the model is told in the call's result, the user in the turn's warning
    expect(result).toContain('moved aside')
    expect(warning?.paths).toEqual(expect.arrayContaining([expect.stringMatching(/^tools\/evil\/config → tools\/evil\/config\.cortex-disabled \(disabled\)$/)]))
    await service.closeSession({ sessionId: id })
  }, 180_000)

  it('a folder without a repository: the root itself built into one beside the empty .git placeholder', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' }, { git: false })
    const id = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
    const { result, warning } = await bash(id, `${makeBare('.')}; echo made=$?`)
    expect(result).toContain('made=0')
    hostStatus(repo, home) // the placeholder .git is empty: git takes the root folder itself for the repository
    expect(existsSync(proof), 'git status at the root ran the guest\'s command').toBe(false)
    expect(warning?.paths).toEqual(expect.arrayContaining(['config → config.cortex-disabled (disabled)']))
    await service.closeSession({ sessionId: id })
    hostStatus(repo, home) // and once the guest (and its placeholder) is gone
    expect(existsSync(proof)).toBe(false)
  }, 180_000)

  it('a nested repository added as a gitlink behind 200 000 entries', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n', '.gitignore': 'aa/\n' })
    mkdirSync(join(repo, 'aa'))
    const made = spawnSync('sh', ['-c', 'seq 1 201000 | xargs touch'], { cwd: join(repo, 'aa') })
    expect(made.status).toBe(0)
    const id = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
    const { result, warning } = await bash(
      id,
      [
        `mkdir -p zz/d && git init -q zz/d/sub && git -C zz/d/sub ${ident} commit -q --allow-empty -m sub`,
        `git -C zz/d/sub config core.fsmonitor "touch ${proof}; false"`,
        'git add zz/d/sub 2>/dev/null; echo added=$?'
      ].join(' && ')
    )
    expect(result).toContain('added=0')
    expectNothingRuns(repo, ['zz/d/sub', ''])
    expect(warning?.paths.join('\n')).toContain('zz/d/sub/.git/config → zz/d/sub/.git/config.cortex-disabled (disabled)')
    await service.closeSession({ sessionId: id })
  }, 300_000)

  it('a .git file and a .git symlink: added in one turn, their targets armed in the next', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const id = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
    const first = await bash(
      id,
      'mkdir -p s1 s2 && git init -q --bare g1 && git init -q --bare g2 && echo "gitdir: ../g1" > s1/.git && ln -s ../g2 s2/.git && echo made=$?'
    )
    expect(first.result).toContain('made=0')
    const second = await bash(
      id,
      [`git --git-dir=g1 config core.bare false && git --git-dir=g1 config core.fsmonitor "touch ${proof}; false"`, `git --git-dir=g2 config core.bare false && git --git-dir=g2 config core.fsmonitor "touch ${proof}; false"`, 'echo armed=$?'].join(' && ')
    )
    expect(second.result).toContain('armed=0')
    expectNothingRuns(repo, ['s1', 's2', 'g1', 'g2'])
    expect(second.warning?.paths.join('\n')).toMatch(/g1\/config → g1\/config\.cortex-disabled(-\d+)? \(disabled\)/)
    expect(second.warning?.paths.join('\n')).toMatch(/g2\/config → g2\/config\.cortex-disabled(-\d+)? \(disabled\)/)
    await service.closeSession({ sessionId: id })
  }, 180_000)

  it('a new .git/commondir naming a forged common gitdir', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const id = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
    const { result, warning } = await bash(
      id,
      `mkdir -p common/objects common/refs && printf "[core]\\n\\trepositoryformatversion = 0\\n\\t${fsmonitor}\\n" > common/config && echo ../common > .git/commondir; echo made=$?`
    )
    expect(result).toContain('made=0')
    expectNothingRuns(repo, [''])
    expect(warning?.paths.join('\n')).toContain('.git/commondir → .git/commondir.cortex-disabled (disabled)')
    await service.closeSession({ sessionId: id })
  }, 180_000)

  it('a repository made by a long command is disarmed while the command still runs', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const id = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
    script.push({ toolCalls: [{ name: 'bash', args: { command: `${makeBare('slow')} && touch slow-made && sleep 20; echo slept` } }] }, { text: 'done' })
    const from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'go' } })
    try {
      await waitFor(() => existsSync(join(repo, 'slow/config.cortex-disabled')), 15_000)
      // still inside the call: no result yet
      expect(events.slice(from).some((e) => e.sessionId === id && e.event.type === 'tool_call_finished')).toBe(false)
      expectNothingRuns(repo, ['slow'])
    } finally {
      // the turn ends either way, so the next test's script steps are not taken by this session
      await service.idle(id)
      await service.closeSession({ sessionId: id })
    }
  }, 180_000)

  it('a repository a process left running makes between turns is disarmed before the next turn runs anything', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const id = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
    const first = await bash(id, `setsid sh -c 'while [ ! -e go ]; do sleep 0.2; done; ${makeBare('late').replace(/'/g, "'\\''")} && touch late-made' > /dev/null 2>&1 & echo started`)
    expect(first.result).toContain('started')
    // between turns: the lingering process builds the repository
    writeFileSync(join(repo, 'go'), '')
    await waitFor(() => existsSync(join(repo, 'late-made')), 15_000)
    const second = await bash(id, 'ls late')
    expectNothingRuns(repo, ['late'])
    expect(second.result).toContain('config.cortex-disabled')
    expect(second.warning?.paths.join('\n')).toContain('late/config → late/config.cortex-disabled (disabled)')
    await service.closeSession({ sessionId: id })
  }, 180_000)

  it('the attack is real: host git status runs a nested repository config it finds by structure', () => {
    const d = mkdtempSync(join(tmpdir(), 'cortex-arming-control-'))
    try {
      mkdirSync(join(d, 'objects'))
      mkdirSync(join(d, 'refs'))
      writeFileSync(join(d, 'HEAD'), 'ref: refs/heads/main\n')
      writeFileSync(join(d, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${proof}; false"\n`)
      spawnSync('git', ['status', '--porcelain'], { cwd: d, env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' }, timeout: 20_000 })
      expect(existsSync(proof)).toBe(true)
    } finally {
      rmSync(d, { recursive: true, force: true })
    }
  })
})
