// Issue 8 item 3 over a real Docker guest and the session service: no bash command can hang a call
// (the working directory comes back on an agent-owned pipe, never through a file the command could
// replace with a FIFO), a stopped guest agent ends the call at its deadline and the guest is
// replaced, Stop ends the turn within 2 s and closeSession within 5 s with no container left. Each
// test has its own model server, script, service and session. Times are hang guards (10x expected)
// or the product's stated promises, not speed figures.
import { execFileSync } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { CALL_DEADLINE_MS, PING_CHECK_MS, SPAWN_GRACE_MS } from '../../src/main/guest/agent-client'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'
import { eventually } from '../support/wait-until'

type Finished = Extract<SessionEvent, { type: 'tool_call_finished' }>
/** Stop ends the turn within 2 s wherever it is (README): the product's promise, asserted as is. */
const STOP_PROMISE_MS = 2_000

/** Ids of containers (any state) carrying label `key=value`. */
function containers(key: string, value: string, all = true): string[] {
  const out = execFileSync('docker', ['ps', ...(all ? ['-a'] : []), '-q', '--no-trunc', '--filter', `label=${key}=${value}`], { encoding: 'utf8' })
  return out.split('\n').filter(Boolean)
}

/** Pause between two looks at a condition that has a deadline. */
const POLL_MS = 20

/** Wait until `pred()` holds or `ms` pass; returns whether it held (a deadline, not a sleep). */
const waitFor = (pred: () => boolean | Promise<boolean>, ms: number): Promise<boolean> => eventually(pred, ms, POLL_MS)

/** Whether the guest agent (`node /opt/cortex/agent.cjs`) in container `id` is stopped (state T). */
function agentStopped(id: string): boolean {
  const out = execFileSync('docker', ['exec', id, 'sh', '-c', `for p in /proc/[0-9]*; do case "$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)" in "node /opt/cortex/agent.cjs"*) cut -d' ' -f3 $p/stat;; esac; done`], { encoding: 'utf8' })
  return out.split('\n').includes('T')
}

/**
 * One test's own world: its scripted model server and script, its session service and event log,
 * and one session on a fresh repository. Nothing is shared between tests, so a test that fails
 * (a step left in a script, a wedged guest) cannot change what the next one sees.
 */
interface HangWorld {
  server: ScriptedModelServer
  service: SessionService
  script: ScriptStep[]
  repo: string
  id: string
  /** This session's events from index `from` of the log on. */
  of: (from?: number) => SessionEvent[]
  /** Length of the event log now (a mark for `of`). */
  mark: () => number
  /** Send `text`, wait for the turn to end and return its events. */
  turn: (text: string) => Promise<SessionEvent[]>
  /** Id prefix of the guest the session's last `ready` status named. */
  guestId: () => string | undefined
}

describe.skipIf(skipWithoutDocker())('no guest call can hang (issue 8, item 3)', () => {
  /** What this test started, stopped in reverse order after it (also when start() failed halfway). */
  const cleanups: Array<() => Promise<unknown>> = []

  /** Start this test's model server (on `script`), session service and session. */
  async function start(script: ScriptStep[]): Promise<HangWorld> {
    const server = await startScriptedModelServer(script)
    cleanups.push(() => server.close())
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const service = await createSessionService({
      dataDir: tempDir('cortex-hang-'),
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0 })
    })
    cleanups.push(() => service.shutdown())
    const events: EventEnvelope[] = []
    service.onEvent((e) => events.push(e))
    const id = (await service.openSession({ repo })).id
    const of = (from = 0) => events.slice(from).filter((e) => e.sessionId === id).map((e) => e.event)
    return {
      server, service, script, repo, id, of,
      mark: () => events.length,
      turn: async (text) => {
        const from = events.length
        await service.submit({ sessionId: id, op: { type: 'user_message', text } })
        await service.idle(id)
        return of(from)
      },
      guestId: () => {
        const ready = of().filter((e) => e.type === 'guest_status' && e.state === 'ready').at(-1)
        return ready && ready.type === 'guest_status' ? ready.detail?.split(' ')[0] : undefined
      }
    }
  }
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  const results = (evs: SessionEvent[]) => evs.filter((e): e is Finished => e.type === 'tool_call_finished')

  it('a command that swaps the report pipe for a FIFO, drops the EXIT trap or reports a FIFO as its cwd cannot hang the call', async () => {
    const w = await start([
      // the old attack, adapted: no cwd file exists any more; make the report channel a FIFO instead
      { toolCalls: [{ name: 'bash', args: { command: 'trap - EXIT; mkfifo /tmp/cwd.fifo; exec 63>&-; exec 63<>/tmp/cwd.fifo 3<>/tmp/cwd.fifo; echo swapped', timeout_ms: 5000 } }] },
      // report a FIFO as the working directory: the next call must not open it
      { toolCalls: [{ name: 'bash', args: { command: 'trap - EXIT; echo /tmp/cwd.fifo >&63; echo reported', timeout_ms: 5000 } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'pwd', timeout_ms: 5000 } }] },
      // a detached child keeps fd 3 open: the call still ends at once, and the cwd is still reported
      { toolCalls: [{ name: 'bash', args: { command: 'cd /tmp && (setsid sleep 60 >/dev/null 2>&1 &) && echo detached', timeout_ms: 5000 } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'pwd', timeout_ms: 5000 } }] },
      // the command's own fd 3 is its own: the wrapper's report does not land in it
      { toolCalls: [{ name: 'bash', args: { command: 'exec 3>/tmp/mine.txt; echo mine >&3; cd /', timeout_ms: 5000 } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'pwd; cat /tmp/mine.txt', timeout_ms: 5000 } }] },
      { text: 'done' }
    ])
    const t0 = Date.now()
    const evs = await w.turn('attack')
    const took = Date.now() - t0
    if (process.env.CORTEX_PRINT_TIMINGS) process.stdout.write(`[guest-hang] test 1: ${took} ms\n`)
    const rs = results(evs)
    expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    expect(rs.map((r) => r.isError)).toEqual([false, false, false, false, false, false, false])
    expect(rs[0]?.result).toContain('swapped')
    expect(rs[1]?.result).toContain('reported')
    expect(rs[2]?.result).toContain('cwd_reset')
    expect(rs[2]?.result).toContain(w.repo)
    expect(rs[3]?.result).toContain('detached')
    expect(rs[4]?.result).toMatch(/^\/tmp$/m)
    expect(rs[6]?.result).toMatch(/^\/\nmine$/m)
    // hang guard: 1.2-1.4 s measured on a quiet machine for the seven commands; one call stalled to its
    // 5 s timeout would still show as an error result above
    expect(took).toBeLessThan(20_000)
    await w.service.closeSession({ sessionId: w.id })
  }, 120_000)

  it('a SIGSTOPped agent ends the call at its timeout, the guest is replaced and the next call works', async () => {
    const w = await start([{ toolCalls: [{ name: 'bash', args: { command: 'kill -STOP $PPID; sleep 100', timeout_ms: 2000 } }] }])
    await w.service.submit({ sessionId: w.id, op: { type: 'set_mode', mode: 'agent' } })
    const t0 = Date.now()
    const evs = await w.turn('stop the agent')
    const took = Date.now() - t0
    if (process.env.CORTEX_PRINT_TIMINGS) process.stdout.write(`[guest-hang] test 2: ${took} ms\n`)
    const first = w.guestId()
    expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'error' })
    expect(evs.find((e) => e.type === 'error')).toMatchObject({ code: 'guest_failed', message: expect.stringMatching(/stopped answering/) })
    // hang guard: timeout 2 s + host grace + the liveness ping, 10x
    expect(took).toBeLessThan(10 * (2000 + SPAWN_GRACE_MS + PING_CHECK_MS))
    expect(await waitFor(() => containers('dev.cortex.session', w.id).every((c) => !c.startsWith(first ?? '-')), 10_000)).toBe(true)
    w.script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo alive' } }] }, { text: 'ok' })
    const [r] = results(await w.turn('again'))
    expect(r).toMatchObject({ isError: false })
    expect(r?.result).toContain('alive')
    expect(w.guestId()).not.toBe(first)
    await w.service.closeSession({ sessionId: w.id })
  }, 120_000)

  it('a file tool on an agent stopped from the host ends at the call deadline and the guest is replaced', async () => {
    const w = await start([{ toolCalls: [{ name: 'bash', args: { command: 'echo warm' } }] }, { text: 'ok' }])
    await w.turn('warm up')
    const first = w.guestId()
    // The turn reads its environment block through the guest before the model request, so the agent
    // is stopped once that request arrives (its reply streams slowly), before the model's read_file
    // reaches the agent. SIGSTOP from the host (docker exec), not from a tool call.
    w.script.push({ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }], chunkDelayMs: 1500 })
    const t0 = Date.now()
    const asked = w.server.requests.length
    const from = w.mark()
    await w.service.submit({ sessionId: w.id, op: { type: 'user_message', text: 'read' } })
    expect(await waitFor(() => w.server.requests.length > asked, 60_000)).toBe(true)
    expect(w.of(from).some((e) => e.type === 'tool_call_started')).toBe(false)
    execFileSync('docker', ['exec', first!, 'sh', '-c', `for p in /proc/[0-9]*; do case "$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)" in "node /opt/cortex/agent.cjs"*) kill -STOP \${p#/proc/};; esac; done`])
    expect(w.of(from).some((e) => e.type === 'tool_call_started')).toBe(false) // stopped before the call could reach the agent
    await w.service.idle(w.id)
    const evs = w.of(from)
    const took = Date.now() - t0
    if (process.env.CORTEX_PRINT_TIMINGS) process.stdout.write(`[guest-hang] test 3: ${took} ms\n`)
    expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'error' })
    expect(evs.find((e) => e.type === 'error')).toMatchObject({ code: 'guest_failed', message: expect.stringMatching(/stopped answering/) })
    // hang guard: the call deadline plus the liveness ping, 10x
    expect(took).toBeLessThan(10 * (CALL_DEADLINE_MS + PING_CHECK_MS))
    w.script.push({ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }, { text: 'ok' })
    const [r] = results(await w.turn('again'))
    expect(r).toMatchObject({ isError: false })
    expect(w.guestId()).not.toBe(first)
    await w.service.closeSession({ sessionId: w.id })
  }, 300_000)

  /** Start a world whose first turn's bash call SIGSTOPs the guest agent; resolve once the agent is stopped. */
  async function startStoppedAgentCall(): Promise<HangWorld> {
    const w = await start([{ toolCalls: [{ name: 'bash', args: { command: 'kill -STOP $PPID; sleep 300' } }] }])
    await w.service.submit({ sessionId: w.id, op: { type: 'user_message', text: 'hang' } })
    expect(await waitFor(() => w.of().some((e) => e.type === 'tool_call_started'), 30_000)).toBe(true)
    // the call may start before the guest is up (the first request no longer waits for it, ADR 0026)
    expect(await waitFor(() => w.guestId() !== undefined, 30_000)).toBe(true)
    const guest = w.guestId()
    expect(await waitFor(() => agentStopped(guest!), 30_000)).toBe(true)
    return w
  }

  it('Stop ends a call whose agent is stopped at once, and the wedged guest is replaced', async () => {
    const w = await startStoppedAgentCall()
    const t0 = Date.now()
    await w.service.submit({ sessionId: w.id, op: { type: 'stop' } })
    await w.service.idle(w.id)
    const took = Date.now() - t0
    if (process.env.CORTEX_PRINT_TIMINGS) process.stdout.write(`[guest-hang] test 4: ${took} ms\n`)
    expect(w.of().at(-1)).toMatchObject({ type: 'turn_ended', reason: 'stopped' })
    expect(took).toBeLessThan(STOP_PROMISE_MS) // the product's promise (README: Stop ends the turn within 2 s), not a speed figure
    const first = w.guestId()
    // the unacknowledged kill marks the agent wedged: its container goes
    expect(await waitFor(() => !containers('dev.cortex.session', w.id).some((c) => c.startsWith(first ?? '-')), 30_000)).toBe(true)
    w.script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo alive' } }] }, { text: 'ok' })
    const [r] = results(await w.turn('again'))
    expect(r?.result).toContain('alive')
    await w.service.closeSession({ sessionId: w.id })
  }, 120_000)

  it('closeSession during a call on a stopped agent finishes within 5 s and leaves no container', async () => {
    const w = await startStoppedAgentCall()
    expect(containers('dev.cortex.session', w.id, false)).toHaveLength(1)
    const t0 = Date.now()
    await w.service.closeSession({ sessionId: w.id })
    const took = Date.now() - t0
    if (process.env.CORTEX_PRINT_TIMINGS) process.stdout.write(`[guest-hang] test 5: ${took} ms\n`)
    expect(took).toBeLessThan(5_000) // the product's promise (README: closed and its guest removed within about 5 s), not a speed figure
    expect(containers('dev.cortex.session', w.id)).toEqual([])
  }, 120_000)
})
