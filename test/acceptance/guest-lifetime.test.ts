// Issue 8 items 3 and 4 through the product's entry points (`cortex run`, `cortex serve`) with a
// real Docker guest and the scripted model server: a double Ctrl-C of `cortex run` and a SIGTERM of
// `cortex serve` (even with the guest agent SIGSTOPped mid-call) leave no container, the latter
// within 5 s; after kill -9 of either, no guest of theirs runs 10 s later — by the guest's own exit
// on host EOF alone (watchdog off), also when the live agent is one an exec restarted, and by the
// host watchdog's removal even when the agent is SIGSTOPped. Containers are found by the owner label (host/boot-id/pid of the CLI).
// Times are hang guards (10x expected) or the issue's own bounds.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { EventEnvelope } from '../../src/shared/events'
import { HOST_WATCHDOG_ENV } from '../../src/main/guest/host-watchdog'
import { LABEL_OWNER, ownerTag } from '../../src/main/guest/owner'
import { CLI } from '../support/cli'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'
import { eventually } from '../support/wait-until'


/**
 * The owner tag of `pid`, taken while it runs: it holds the process's start time, which /proc no
 * longer gives once the process exited (a tag computed then would match no container, and every
 * "no container left" check after an exit would pass whatever was left).
 */
const ownerTags = new Map<number, string>()
function ownerTagOf(pid: number): string {
  const known = ownerTags.get(pid)
  if (known) return known
  const tag = ownerTag(pid)
  if (tag.split('/').length !== 4) throw new Error(`owner tag of ${pid} taken after it exited: ${tag}`)
  ownerTags.set(pid, tag)
  return tag
}

/**
 * Ids of the containers (running only, or any state with `all`) created by process `pid`: its
 * session guests, and with `withCheckpoints` also the repository's checkpoint guest (ADR 0010), which
 * must go the same way.
 */
function guestsOf(pid: number, all: boolean, withCheckpoints = false): string[] {
  const out = execFileSync('docker', ['ps', ...(all ? ['-a'] : []), '--filter', `label=${LABEL_OWNER}=${ownerTagOf(pid)}`, '--format', '{{.ID}} {{.Label "dev.cortex.role"}}'], { encoding: 'utf8' })
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' '))
    .filter(([, role]) => withCheckpoints || !role)
    .map(([id]) => id as string)
}

/** Whether a process whose command line contains `command` runs in container `id` (docker top). */
function runsIn(id: string | undefined, command: string): boolean {
  if (!id) return false
  try {
    // docker top needs a pid column
    return execFileSync('docker', ['top', id, '-eo', 'pid,args'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).includes(command)
  } catch {
    return false // not running (yet, or any more)
  }
}

/** Whether a SIGINT sent to process `pid` is still pending, not yet delivered (/proc/PID/status masks). */
function sigintPending(pid: number): boolean {
  let status: string
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return false // exited: nothing pending
  }
  // SIGINT is signal 2: bit 1 of the last hex digit of each mask
  return [...status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].some((m) => (parseInt(m[1]!.slice(-1), 16) & 2) !== 0)
}

/** Wait until `pred()` holds or `ms` pass (a deadline, not a sleep); returns whether it held. */
const waitFor = (pred: () => boolean, ms: number): Promise<boolean> => eventually(pred, ms)

/**
 * Watch container `id`'s `kill` and `die` events. `stoppedByItself()` is true once it died with no
 * kill before: it stopped on its own, not because a sweep (of another Cortex process sharing the
 * daemon) or a `docker rm -f` removed it.
 */
function watchDeath(id: string) {
  const actions: string[] = []
  // --since: events from now on are replayed even if the subscription is made later, so no wait is needed
  const since = String(Math.floor(Date.now() / 1000))
  const p = spawn('docker', ['events', '--since', since, '--format', '{{.Action}}', '--filter', `container=${id}`, '--filter', 'event=kill', '--filter', 'event=die'], { stdio: ['ignore', 'pipe', 'ignore'] })
  p.stdout.setEncoding('utf8').on('data', (d: string) => actions.push(...d.split('\n').filter(Boolean)))
  return {
    ready: Promise.resolve(),
    stoppedByItself: () => actions.includes('die') && actions.indexOf('die') < (actions.includes('kill') ? actions.indexOf('kill') : Infinity),
    actions,
    stop: () => p.kill()
  }
}

/** Resolves with the exit of `child` (code or signal). */
const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) r({ code: child.exitCode, signal: child.signalCode })
    else child.once('exit', (code, signal) => r({ code, signal }))
  })

describe.skipIf(skipWithoutDocker())('guests end with their host and never outlive a shutdown (issue 8, items 3 and 4)', () => {
  let server: ScriptedModelServer | undefined
  let repo: string
  let script: ScriptStep[] = []
  const home = tempDir('cortex-home-')
  const pids: number[] = []

  beforeAll(async () => {
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
  })
  // a fresh model server per test: a killed run leaves steps of its script unused
  beforeEach(async () => {
    script = []
    server = await startScriptedModelServer(script)
  })
  afterEach(async () => {
    await server?.close()
    server = undefined
    // whatever a failed test left behind (the product removes its guests itself)
    for (const pid of pids.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL') // a test that failed before its kill leaves its cortex running
      } catch {
        // exited already
      }
      for (const id of guestsOf(pid, true, true)) {
        try {
          execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' })
        } catch {
          // gone or going already: the watchdog or the guest's own exit is removing it
        }
      }
    }
  })
  const model = () => ['--provider', 'openai-compatible', '--base-url', server!.baseUrl, '--model', 'scripted']

  /** Spawn the built CLI with `args` in this test's CORTEX_HOME; `out.text` collects its stdout. */
  function startCli(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess & { pid: number }; out: { text: string } } {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, CORTEX_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    pids.push(child.pid!)
    const out = { text: '' }
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out.text += c))
    child.stderr.resume()
    return { child: child as ChildProcess & { pid: number }, out }
  }

  /** Start `cortex run --json` and resolve once the first tool call's command (which ends in `sleep 300`) runs in the guest. */
  async function runUntilToolStarts(command: string, env: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
    script.push({ toolCalls: [{ name: 'bash', args: { command } }] }, { text: 'done' })
    const { child, out: stdout } = startCli(['run', '--repo', repo, ...model(), '--json', 'go'], env)
    expect(await waitFor(() => stdout.text.includes('"tool_call_started"') || child.exitCode !== null, 60_000), stdout.text).toBe(true)
    expect(child.exitCode, stdout.text).toBe(null)
    // tool_call_started comes before the tool waits for its guest (and the checkpoint guest): under load
    // the session guest may still be starting; once it runs, the command starts in it
    expect(await waitFor(() => guestsOf(child.pid, false).length === 1, 30_000)).toBe(true)
    // the command is running in the guest
    expect(await waitFor(() => guestsOf(child.pid, false).some((id) => runsIn(id, 'sleep 300')), 30_000)).toBe(true)
    return child
  }

  it('kill -9 of `cortex run` mid-call: its guest stops by itself within 10 s (host watchdog off)', async () => {
    const child = await runUntilToolStarts('sleep 300', { [HOST_WATCHDOG_ENV]: '0' })
    const death = watchDeath(guestsOf(child.pid!, false)[0]!)
    await death.ready
    const t0 = Date.now()
    child.kill('SIGKILL')
    await exited(child)
    expect(await waitFor(death.stoppedByItself, 10_000), death.actions.join(',')).toBe(true)
    death.stop()
    // `docker ps` may report the state a moment after the event
    expect(await waitFor(() => guestsOf(child.pid!, false, true).length === 0, 2000)).toBe(true)
    process.stdout.write(`[guest-lifetime] run kill -9: guest stopped after ${Date.now() - t0} ms\n`)
  }, 120_000)

  it('kill -9 of `cortex run` while its agent is SIGSTOPped: the host watchdog removes the guest within 10 s', async () => {
    const child = await runUntilToolStarts('kill -STOP $PPID; sleep 300')
    const t0 = Date.now()
    child.kill('SIGKILL')
    await exited(child)
    expect(await waitFor(() => guestsOf(child.pid!, true, true).length === 0, 10_000)).toBe(true)
    process.stdout.write(`[guest-lifetime] run kill -9 with a stopped agent: guest removed after ${Date.now() - t0} ms\n`)
  }, 120_000)

  it('a double Ctrl-C of `cortex run` while the agent is SIGSTOPped leaves no container', async () => {
    // the watchdog off: the second Ctrl-C itself must remove the guest before the process exits
    const child = await runUntilToolStarts('kill -STOP $PPID; sleep 300', { [HOST_WATCHDOG_ENV]: '0' })
    const t0 = Date.now()
    child.kill('SIGINT')
    // the second comes once the first was delivered (two pending SIGINTs would merge into one)
    expect(await waitFor(() => !sigintPending(child.pid!), 10_000)).toBe(true)
    child.kill('SIGINT')
    const { code } = await exited(child)
    const took = Date.now() - t0
    expect(code).toBe(130)
    expect(guestsOf(child.pid!, true, true)).toEqual([])
    expect(took).toBeLessThan(10_000) // hang guard: ~0.2 s measured on a quiet machine (force-remove, then exit), more under load
    process.stdout.write(`[guest-lifetime] run double Ctrl-C: exited after ${took} ms, no container\n`)
  }, 120_000)

  /** Start `cortex serve` and open a WebSocket to it. */
  async function serve(env: NodeJS.ProcessEnv = {}) {
    const { child, out: stdout } = startCli(['serve', '--port', '0', ...model()], env)
    expect(await waitFor(() => /serving at (\S+)/.test(stdout.text) || child.exitCode !== null, 60_000), stdout.text).toBe(true)
    const url = new URL(/serving at (\S+)/.exec(stdout.text)![1]!)
    const ws = new WebSocket(`ws://${url.host}/ws?token=${url.searchParams.get('token')}`, { origin: url.origin })
    await new Promise((r, j) => ws.once('open', r).once('error', j))
    const events: EventEnvelope[] = []
    const waiting = new Map<number, (v: unknown) => void>()
    ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as { kind: string; id?: number; result?: unknown; envelope?: EventEnvelope }
      if (m.kind === 'event' && m.envelope) events.push(m.envelope)
      if (m.kind === 'response' && m.id !== undefined) waiting.get(m.id)?.(m.result)
    })
    let seq = 0
    const request = (method: string, input: unknown) =>
      new Promise<{ ok: boolean; value?: { id: string } }>((r) => {
        const id = ++seq
        waiting.set(id, r as (v: unknown) => void)
        ws.send(JSON.stringify({ kind: 'request', id, method, input }))
      })
    const turnEnded = (n: number) => waitFor(() => events.filter((e) => e.event.type === 'turn_ended').length >= n, 60_000)
    const toolStarted = (n: number) => waitFor(() => events.filter((e) => e.event.type === 'tool_call_started').length >= n, 60_000)
    return { child, ws, request, events, turnEnded, toolStarted }
  }

  it('SIGTERM of `cortex serve` during a call on a SIGSTOPped agent exits within 5 s and leaves no container', async () => {
    const s = await serve({ [HOST_WATCHDOG_ENV]: '0' })
    const opened = await s.request('openSession', { repo })
    expect(opened.ok).toBe(true)
    const sessionId = opened.value!.id
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'kill -STOP $PPID; sleep 300' } }] }, { text: 'done' })
    await s.request('submit', { sessionId, op: { type: 'user_message', text: 'hang' } })
    expect(await s.toolStarted(1)).toBe(true)
    expect(await waitFor(() => guestsOf(s.child.pid, false).length >= 1, 30_000)).toBe(true) // the guest may still be starting
    // the agent is stopped once the command's sleep runs
    // (in whichever guest of serve's runs it: a warm-pool guest may be listed first)
    expect(await waitFor(() => guestsOf(s.child.pid, false).some((id) => runsIn(id, 'sleep 300')), 30_000)).toBe(true)
    const t0 = Date.now()
    s.child.kill('SIGTERM')
    const { code } = await exited(s.child)
    const took = Date.now() - t0
    s.ws.terminate()
    expect(code).toBe(0)
    expect(took).toBeLessThan(5_000) // the product's promise (README: `cortex serve` closes within about 5 s), not a speed figure
    expect(guestsOf(s.child.pid, true, true)).toEqual([])
    process.stdout.write(`[guest-lifetime] serve SIGTERM: exited after ${took} ms, no container\n`)
  }, 120_000)

  it('kill -9 of `cortex serve`: its guest stops by itself within 10 s, also when the live agent was restarted by exec (host watchdog off)', async () => {
    const s = await serve({ CORTEX_WARM_POOL: '0', [HOST_WATCHDOG_ENV]: '0' })
    const sessionId = (await s.request('openSession', { repo })).value!.id
    // the first agent (the container's main process) dies; the next call restarts it with an exec
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'kill -9 $PPID' } }] })
    await s.request('submit', { sessionId, op: { type: 'user_message', text: 'kill the agent' } })
    expect(await s.turnEnded(1)).toBe(true)
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo restarted; sleep 300' } }] }, { text: 'done' })
    await s.request('submit', { sessionId, op: { type: 'user_message', text: 'sleep' } })
    expect(await s.toolStarted(2)).toBe(true)
    const restarted = (): boolean => s.events.some((e) => e.event.type === 'tool_output' && JSON.stringify(e.event).includes('restarted'))
    expect(await waitFor(() => restarted() && guestsOf(s.child.pid, false).some((id) => runsIn(id, 'sleep 300')), 30_000)).toBe(true)
    const out = s.events.filter((e) => e.event.type === 'tool_output').map((e) => JSON.stringify(e.event)).join('')
    expect(out).toContain('restarted')
    expect(guestsOf(s.child.pid, false)).toHaveLength(1)
    const death = watchDeath(guestsOf(s.child.pid, false)[0]!)
    await death.ready
    const t0 = Date.now()
    s.child.kill('SIGKILL')
    await exited(s.child)
    s.ws.terminate()
    expect(await waitFor(death.stoppedByItself, 10_000), death.actions.join(',')).toBe(true)
    death.stop()
    expect(await waitFor(() => guestsOf(s.child.pid, false, true).length === 0, 2000)).toBe(true)
    process.stdout.write(`[guest-lifetime] serve kill -9 (exec-restarted agent): guest stopped after ${Date.now() - t0} ms\n`)
  }, 120_000)
})
