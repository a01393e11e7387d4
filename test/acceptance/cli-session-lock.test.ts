// Two real `cortex run --resume` processes on one session: while the first runs a turn, the second
// is refused with a one-line error naming the first process (exit 1) and the log is untouched by it;
// after the first is killed with -9 its lock is stale and a third resume takes the session over.
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI, runCli } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

/**
 * Remove containers of `sessionId` (the kill -9'd CLI could not), one at a time: the host watchdog
 * or the guest's own exit may be removing one already ("No such container", "already in progress").
 */
function removeGuests(sessionId: string): void {
  const ids = execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.cortex.session=${sessionId}`], { encoding: 'utf8' }).trim()
  for (const id of ids ? ids.split('\n') : []) {
    try {
      execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' })
    } catch {
      // gone or going already: the watchdog or the guest's own exit is removing it
    }
  }
}

describe.skipIf(skipWithoutDocker())('cortex run --resume: one process per session', () => {
  let server: ScriptedModelServer
  let sessionId = ''
  afterAll(async () => {
    if (sessionId) removeGuests(sessionId)
    await server?.close()
  })

  it('refuses a second process, and takes over after the first is killed -9', async () => {
    server = await startScriptedModelServer([
      { text: 'first answer' },
      { text: 'holding the session', hangAfterText: true },
      { text: 'taken over' }
    ])
    const home = tempDir('cortex-lock-home-')
    const repo = await makeTestRepo({ 'a.txt': 'x\n' })
    const model = ['--provider', 'openai-compatible', '--base-url', server.baseUrl, '--model', 'm', '--json']
    const env = { ...process.env, CORTEX_HOME: home, CORTEX_WARM_POOL: '0' }
    const first = await runCli(['run', '--repo', repo, ...model, 'hello'], { env })
    expect(first.code).toBe(0)
    sessionId = first.events[0]!.sessionId
    const log = join(home, 'sessions', sessionId, 'events.jsonl')

    // the holder: a resumed turn that streams, then waits on the model
    const holder = spawn(process.execPath, [CLI, 'run', '--resume', sessionId, ...model, 'hold it'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const exited = new Promise<void>((resolve) => holder.once('exit', () => resolve()))
    await new Promise<void>((resolve, reject) => {
      let out = ''
      holder.stdout.setEncoding('utf8').on('data', (c: string) => {
        out += c
        // the last word-sized delta (the stream then hangs) and a started guest (so kill -9 leaves a known container)
        if (out.includes('"text":"session"') && out.includes('"state":"ready"')) resolve()
      })
      holder.once('exit', (code) => reject(new Error(`holder exited early (${code})`)))
    })
    const before = readFileSync(log, 'utf8')
    const second = await runCli(['run', '--resume', sessionId, ...model.filter((a) => a !== '--json'), 'me too'], { env })
    expect(second.code).toBe(1)
    expect(second.stderr.trim().split('\n')).toHaveLength(1)
    expect(second.stderr).toContain(`already open in process ${holder.pid}`)
    expect(readFileSync(log, 'utf8')).toBe(before)

    holder.kill('SIGKILL')
    await exited
    removeGuests(sessionId)
    const third = await runCli(['run', '--resume', sessionId, ...model, 'taking over'], { env })
    // nothing but the closing line naming the session and how to continue it
    expect(third.stderr).toBe(`session ${sessionId} · continue it with: cortex run --resume ${sessionId} "<prompt>"\n`)
    expect(third.code).toBe(0)
    expect(third.stdout).toContain('taken over')
  }, 180_000)
})
