// Issue 8 follow-up (hostile-input probe): the HOST never blocks or floods itself on a file the guest
// made. The git guard reads `.gitmodules` (and `.git` pointer files, `commondir`) on the host before
// each guest start; a FIFO there blocked the host process's main thread for good (a synchronous
// read: not even SIGTERM ran), and a symlink to /dev/zero read without end. Through the built CLI
// with a real guest and the scripted model server: the model turns `.gitmodules` into a FIFO (or a
// link to /dev/zero), and the next run on the folder still starts its guest and ends normally.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'

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
      const home = mkdtempSync(join(tmpdir(), 'cortex-host-reads-home-'))
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
})
