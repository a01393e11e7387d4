// A reader that closes the CLI's output early (`| grep -m1 …`): the built `cortex run --json` stops its
// turn, closes the session (lock file removed, guest removed) and exits 141 without a stack trace,
// and a later --resume works; `cortex sessions | head -0` and `cortex rules list | head -0` exit 0 quietly.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI, runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'

/** Run `cortex ARGS | READER` in bash (a reader that exits early); returns the reader's stdout, cortex's stderr and cortex's exit status. */
function pipeTo(args: string[], reader: string, env: NodeJS.ProcessEnv, dir: string): Promise<{ out: string; err: string; status: number }> {
  const errFile = join(dir, `stderr-${Math.random().toString(36).slice(2)}`)
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
  return new Promise((resolve, reject) => {
    const sh = spawn('bash', ['-c', `${quoted} 2>'${errFile}' | ${reader}; echo "status=\${PIPESTATUS[0]}"`], { env, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    sh.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
    sh.on('error', reject)
    sh.on('close', () => {
      const m = /status=(\d+)\n$/.exec(out)
      resolve({ out: out.replace(/status=\d+\n$/, ''), err: readFileSync(errFile, 'utf8'), status: Number(m?.[1] ?? -1) })
    })
  })
}

describe.skipIf(skipWithoutDocker())('a closed stdout ends the CLI quietly', () => {
  let server: ScriptedModelServer | undefined
  const home = mkdtempSync(join(tmpdir(), 'cortex-epipe-home-'))
  let sessionId = ''
  afterAll(async () => {
    if (sessionId) {
      const ids = execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.session=${sessionId}`], { encoding: 'utf8' }).trim()
      if (ids) execFileSync('docker', ['rm', '-f', ...ids.split('\n')], { stdio: 'ignore' })
    }
    await server?.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('run --json | grep -m1 stops the turn and closes the session; --resume works after', async () => {
    server = await startScriptedModelServer([{ text: 'streaming '.repeat(400), chunkDelayMs: 20 }, { text: 'resumed fine' }])
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const model = ['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json']
    const env = { ...process.env, CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    // the reader quits at the first streamed text, while the model is still streaming (the next write meets a closed pipe)
    const r = await pipeTo(['run', '--repo', repo, ...model, 'hello'], "grep -m1 streaming", env, home)
    expect(r.err).not.toContain('EPIPE')
    expect(r.err).not.toMatch(/\n\s+at /)
    expect(r.status).toBe(141)
    sessionId = (JSON.parse(r.out.trim()) as { sessionId: string }).sessionId
    expect(sessionId).toBeTruthy()
    expect(existsSync(join(home, 'sessions', sessionId, 'lock'))).toBe(false)
    expect(execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.session=${sessionId}`], { encoding: 'utf8' }).trim()).toBe('')
    const resumed = await runCli(['run', '--resume', sessionId, ...model, 'again'], { env })
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('resumed fine')
  }, 180_000)

  it('sessions | head -0 and rules list | head -0 exit 0 without a stack trace', async () => {
    const env = { ...process.env, CORTEX_HOME: home }
    // head -0 exits at once, before node has started, so the first write meets a closed pipe
    for (const args of [['sessions'], ['rules', 'list']]) {
      const r = await pipeTo(args, 'head -0', env, home)
      expect(r.err).toBe('')
      expect(r.status).toBe(0)
    }
  }, 60_000)
})
