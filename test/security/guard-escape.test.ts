// Issue 8 follow-up (hostile-input probe): the git guard's own binds must never reach outside the
// repository. Docker resolves a bind's source on the host, symlinks included, so a guard mount
// whose path runs through a symlink the model planted would bind a host folder outside the
// repository into the next guest, read-write. Through the session service with a real Docker guest
// and the scripted model server: a `.gitmodules` path through a symlink to another project's
// checkout (a folder with a `.git` file) gives the next guest of the folder no access to it.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import { createSessionService, type SessionService } from '../../src/main/session'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'

type Finished = Extract<SessionEvent, { type: 'tool_call_finished' }>

describe.skipIf(skipWithoutDocker())('the git guard binds nothing outside the repository (real guest)', () => {
  let server: ScriptedModelServer
  let service: SessionService
  const script: ScriptStep[] = []
  const events: EventEnvelope[] = []
  const dataDir = mkdtempSync(join(tmpdir(), 'cortex-guard-escape-home-'))

  beforeAll(async () => {
    server = await startScriptedModelServer(script)
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' } })
    })
    service.onEvent((e) => events.push(e))
  }, 120_000)
  afterAll(async () => {
    await service?.shutdown()
    await server?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  /** One turn of one bash call; returns its result text. */
  const bash = async (sessionId: string, command: string): Promise<string> => {
    script.push({ toolCalls: [{ name: 'bash', args: { command } }] }, { text: 'done' })
    const from = events.length
    await service.submit({ sessionId, op: { type: 'user_message', text: 'go' } })
    await service.idle(sessionId)
    const mine = events.slice(from).filter((e) => e.sessionId === sessionId).map((e) => e.event)
    const done = mine.filter((e): e is Finished => e.type === 'tool_call_finished')
    return done[0]?.result ?? mine.map((e) => JSON.stringify(e)).join('\n')
  }

  it('a .gitmodules path through a planted symlink does not bind the link target into the next guest', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    // another project of the same user: a submodule or worktree checkout, i.e. a folder with a .git file
    const other = await makeTestRepo({ 'file.txt': 'secret\n', '.git': 'gitdir: /nowhere\n' }, { git: false })
    const first = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
    const plant = await bash(first, `ln -s ${other} x && printf '[submodule "x"]\\n\\tpath = x\\n\\turl = ./x\\n' > .gitmodules; echo "planted=$?"`)
    expect(plant).toContain('planted=0')
    await service.closeSession({ sessionId: first })

    // the next guest of the folder (a new session, a sandbox switch or a replaced guest all start one)
    const second = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
    const probe = await bash(second, `cat x/file.txt; echo "read=$?"; echo pwned > x/file.txt; echo "write=$?"; touch ${other}/planted; echo "touch=$?"`)
    expect(probe).not.toContain('secret')
    expect(probe).toMatch(/write=[1-9]/)
    expect(probe).toMatch(/touch=[1-9]/)
    expect(readFileSync(join(other, 'file.txt'), 'utf8')).toBe('secret\n')
    expect(existsSync(join(other, 'planted'))).toBe(false)
    await service.closeSession({ sessionId: second })
  }, 180_000)
})
