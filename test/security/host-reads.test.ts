// Issue 8 follow-up (hostile-input probe): the HOST never blocks or floods itself on a file the guest
// made. The git guard reads `.gitmodules` (and `.git` pointer files, `commondir`) on the host before
// each guest start; a FIFO there blocked the host process's main thread for good (a synchronous
// read: not even SIGTERM ran), and a symlink to /dev/zero read without end. Through the built CLI
// with a real guest and the scripted model server: the model turns `.gitmodules` into a FIFO (or a
// link to /dev/zero), and the next run on the folder still starts its guest and ends normally.
// The turn-end watch of host-run files (host-exec-watch.ts) lstat'ed a file and then opened it by
// name: a process the model left running in the guest that keeps swapping `.envrc` between a
// regular file and a FIFO made the host's open block for good, so the turn never ended. Through the
// session service: a dozen turns against that swapping loop all end.
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { DockerGuestProvider } from '../../src/main/guest/docker-guest'
import { createSessionService } from '../../src/main/session'
import { CLI } from '../support/cli'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

/** Run the CLI; a run still going after `hangMs` is killed (SIGKILL) and reported as hung. */
function runCliGuarded(args: string[], env: NodeJS.ProcessEnv, hangMs: number): Promise<{ code: number | null; hung: boolean; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let hung = false
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c))
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c))
    const timer = setTimeout(() => {
      hung = true
      child.kill('SIGKILL')
    }, hangMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      done({ code, hung, stdout, stderr })
    })
  })
}

describe.skipIf(skipWithoutDocker())('host reads of guest-made files never block (built CLI, real guest)', () => {
  const servers: ScriptedModelServer[] = []
  const homes: string[] = []
  afterAll(async () => {
    for (const s of servers) await s.close()
    for (const home of homes) rmSync(home, { recursive: true, force: true })
  })

  for (const [what, plant] of [
    ['a FIFO', 'rm -f .gitmodules && mkfifo .gitmodules'],
    ['a link to /dev/zero', 'rm -f .gitmodules && ln -s /dev/zero .gitmodules']
  ] as const) {
    it(`.gitmodules made ${what} by the model: the next run starts its guest and ends`, async () => {
      const script: ScriptStep[] = [
        { toolCalls: [{ name: 'bash', args: { command: `${plant}; echo "planted=$?"` } }] },
        { text: 'planted' },
        { toolCalls: [{ name: 'bash', args: { command: 'echo still-alive' } }] },
        { text: 'done' }
      ]
      const server = await startScriptedModelServer(script)
      servers.push(server)
      const home = tempDir('cortex-host-reads-home-')
      homes.push(home)
      const repo = await makeTestRepo({ 'a.txt': 'a\n' })
      const env = { ...process.env, CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
      const model = ['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json']
      const first = await runCliGuarded(['run', '--repo', repo, ...model, 'plant'], env, 60_000)
      expect(first.hung).toBe(false)
      expect(first.stdout).toContain('planted=0')
      const second = await runCliGuarded(['run', '--repo', repo, ...model, 'again'], env, 30_000)
      expect(second.hung, 'the second run hung (killed -9 after 30 s)').toBe(false)
      expect(second.code, second.stderr).toBe(0)
      expect(second.stdout).toContain('still-alive')
    }, 120_000)
  }

  it('a guest process swapping .envrc between a file and a FIFO never hangs the turn-end watch', async () => {
    const script: ScriptStep[] = []
    const server = await startScriptedModelServer(script)
    servers.push(server)
    const home = tempDir('cortex-host-reads-home-')
    homes.push(home)
    const service = await createSessionService({
      dataDir: home,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: new DockerGuestProvider({ agentPath: ensureAgentBundle(), labels: { 'dev.cortex.test': '1' } })
    })
    try {
      const repo = await makeTestRepo({ 'a.txt': 'a\n' })
      const id = (await service.openSession({ repo, sandbox: 'workspace-write' })).id
      const swap = [
        'import os, time',
        'end = time.time() + 40',
        'while time.time() < end:',
        '    try: os.mkfifo(".f")',
        '    except FileExistsError: pass',
        '    os.rename(".f", ".envrc")',
        '    open(".r", "w").write("x")',
        '    os.rename(".r", ".envrc")'
      ].join('\n')
      script.push({ toolCalls: [{ name: 'bash', args: { command: `setsid python3 -c '${swap}' </dev/null >/dev/null 2>&1 & echo started` } }] }, { text: 'started' })
      const turn = async (): Promise<boolean> => {
        await service.submit({ sessionId: id, op: { type: 'user_message', text: 'go' } })
        return Promise.race([service.idle(id).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))])
      }
      expect(await turn()).toBe(true)
      for (let i = 0; i < 12; i++) {
        script.push({ text: `turn ${i}` })
        expect(await turn(), `turn ${i} did not end within 15 s`).toBe(true)
      }
      await service.closeSession({ sessionId: id })
    } finally {
      await service.shutdown()
    }
  }, 300_000)
})
