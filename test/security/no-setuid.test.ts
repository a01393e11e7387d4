// Issue 8.2: no privileged artefacts whoever owns the repository. Through the session service with
// a real Docker guest and the scripted model server, the model's chmod 4755, chmod g+s,
// install -m 4755, python os.open(..., 0o4755), mknod and mkdir -m 2755 leave no setuid/setgid
// file or folder on the host (checked with lstat on the host), for a user-owned repository and for
// a root-owned one opened with the explicit opt-in (the guest then runs as uid 0).
import { lstatSync, readdirSync, writeFileSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import { createSessionService, type SessionService } from '../../src/main/session'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { ensureAgentBundle, makeTestRepo, TEST_REPO_UID } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

type Finished = Extract<SessionEvent, { type: 'tool_call_finished' }>

/** Every path below `dir` whose mode has setuid or setgid (lstat: links are not followed). */
function privileged(dir: string): string[] {
  const found: string[] = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    const st = lstatSync(p)
    if (st.mode & 0o6000) found.push(`${p} ${(st.mode & 0o7777).toString(8)}`)
    if (st.isDirectory() && !st.isSymbolicLink()) found.push(...privileged(p))
  }
  return found
}

const ATTACKS = [
  'cp /bin/sh sh1 && chmod 4755 sh1; echo "chmod4755=$?"',
  'cp /bin/sh sh2 && chmod u+s sh2; echo "chmodus=$?"',
  'touch g1 && chmod g+s g1; echo "chmodgs=$?"',
  'install -m 4755 /bin/sh sh3; echo "install=$?"',
  `python3 -c "import os; os.close(os.open('py1', os.O_CREAT | os.O_WRONLY, 0o4755))"; echo "pyopen=$?"`,
  `python3 -c "import os; os.chmod('g1', 0o2755)"; echo "pychmod=$?"`,
  `python3 -c "import os, stat; os.mknod('nod1', stat.S_IFREG | 0o4755)"; echo "mknod=$?"`,
  'mkdir -m 2755 d1; echo "mkdir=$?"',
  'mkdir d2 && chmod g+s d2; echo "dirgs=$?"',
  `node -e "require('fs').writeFileSync('n1','x',{mode:0o4755}); require('fs').chmodSync('n1', 0o4755)"; echo "node=$?"`,
  // ordinary modes keep working
  'touch plain && chmod 755 plain && mkdir -m 700 pdir && install -m 644 /dev/null pfile && echo ORDINARY-OK'
].join('\n')

describe.skipIf(skipWithoutDocker())('no setuid/setgid artefacts (real guest, session service)', () => {
  let server: ScriptedModelServer
  const script: ScriptStep[] = []
  const services: SessionService[] = []

  beforeAll(async () => {
    server = await startScriptedModelServer(script)
  })
  afterAll(async () => {
    for (const s of services) await s.shutdown()
    await server?.close()
  })

  const runAttacks = async (repo: string, allowRootRepo: boolean): Promise<{ result: string; events: SessionEvent[] }> => {
    const service = await createSessionService({
      dataDir: tempDir('cortex-suid-home-'),
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' } }),
      allowRootRepo
    })
    services.push(service)
    const events: EventEnvelope[] = []
    service.onEvent((e) => events.push(e))
    const { id } = await service.openSession({ repo })
    script.push({ toolCalls: [{ name: 'bash', args: { command: ATTACKS } }] }, { text: 'done' })
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'go' } })
    await service.idle(id)
    await service.closeSession({ sessionId: id })
    const evs = events.map((e) => e.event)
    const finished = evs.find((e): e is Finished => e.type === 'tool_call_finished')
    return { result: finished?.result ?? '', events: evs }
  }

  const expectRefused = (result: string): void => {
    for (const k of ['chmod4755', 'chmodus', 'chmodgs', 'install', 'pyopen', 'pychmod', 'mknod', 'mkdir', 'dirgs', 'node']) {
      expect(result, k).toMatch(new RegExp(`${k}=[1-9]`))
    }
    expect(result).toContain('ORDINARY-OK')
  }

  it('a user-owned repository: every attempt is refused and nothing privileged is on the host', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    expect(lstatSync(repo).uid).toBe(process.getuid?.() === 0 ? TEST_REPO_UID : process.getuid?.())
    const { result } = await runAttacks(repo, false)
    expectRefused(result)
    expect(privileged(repo)).toEqual([])
    // the control: the host can set the bit on this file system, so the check above can fail
    const control = join(repo, 'control')
    writeFileSync(control, '')
    chmodSync(control, 0o4755)
    expect(privileged(repo)).toEqual([`${control} 4755`])
  }, 180_000)

  it.skipIf(process.getuid?.() !== 0)('a root-owned repository opened with the opt-in: the root guest cannot set them either', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' }, { uid: 0, gid: 0 })
    expect(lstatSync(repo).uid).toBe(0)
    const { result, events } = await runAttacks(repo, true)
    expect(events.find((e) => e.type === 'host_exec_warning')).toMatchObject({ message: expect.stringContaining('root-owned') })
    expectRefused(result)
    expect(privileged(repo)).toEqual([])
  }, 180_000)
})
