// Issue 8 item 3 over a real Docker guest and the session service: no bash command can hang a call
// (the working directory comes back on an agent-owned pipe, never through a file the command could
// replace with a FIFO), a stopped guest agent ends the call at its deadline and the guest is
// replaced, and Stop and closeSession finish within 5 s with no container left. Times are hang
// guards (10x expected), not speed figures.
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { CALL_DEADLINE_MS, PING_CHECK_MS, SPAWN_GRACE_MS } from '../../src/main/guest/agent-client'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

type Finished = Extract<SessionEvent, { type: 'tool_call_finished' }>
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Ids of containers (any state) carrying label `key=value`. */
function containers(key: string, value: string, all = true): string[] {
  const out = execFileSync('docker', ['ps', ...(all ? ['-a'] : []), '-q', '--no-trunc', '--filter', `label=${key}=${value}`], { encoding: 'utf8' })
  return out.split('\n').filter(Boolean)
}

describe.skipIf(skipWithoutDocker())('no guest call can hang (issue 8, item 3)', () => {
  let server: ScriptedModelServer
  let service: SessionService
  let repo: string
  const events: EventEnvelope[] = []
  const script: ScriptStep[] = []

  beforeAll(async () => {
    server = await startScriptedModelServer(script)
    repo = await makeTestRepo({ 'a.txt': 'a\n' })
    service = await createSessionService({
      dataDir: tempDir('cortex-hang-'),
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0 })
    })
    service.onEvent((e) => events.push(e))
  })
  afterAll(async () => {
    await service?.shutdown()
    await server?.close()
  })

  const of = (sessionId: string, from = 0) => events.slice(from).filter((e) => e.sessionId === sessionId).map((e) => e.event)
  const turn = async (sessionId: string, text: string): Promise<SessionEvent[]> => {
    const from = events.length
    await service.submit({ sessionId, op: { type: 'user_message', text } })
    await service.idle(sessionId)
    return of(sessionId, from)
  }
  const results = (evs: SessionEvent[]) => evs.filter((e): e is Finished => e.type === 'tool_call_finished')
  const guestId = (sessionId: string) => {
    const ready = of(sessionId).filter((e) => e.type === 'guest_status' && e.state === 'ready').at(-1)
    return ready && ready.type === 'guest_status' ? ready.detail?.split(' ')[0] : undefined
  }
  const waitFor = async (pred: () => boolean, ms: number) => {
    const end = Date.now() + ms
    while (!pred() && Date.now() < end) await sleep(20)
    return pred()
  }
  const open = async () => (await service.openSession({ repo })).id

  it('a command that swaps the report pipe for a FIFO, drops the EXIT trap or reports a FIFO as its cwd cannot hang the call', async () => {
    const id = await open()
    script.push(
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
    )
    const t0 = Date.now()
    const evs = await turn(id, 'attack')
    const took = Date.now() - t0
    const rs = results(evs)
    expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'completed' })
    expect(rs.map((r) => r.isError)).toEqual([false, false, false, false, false, false, false])
    expect(rs[0]?.result).toContain('swapped')
    expect(rs[1]?.result).toContain('reported')
    expect(rs[2]?.result).toContain('cwd_reset')
    expect(rs[2]?.result).toContain(repo)
    expect(rs[3]?.result).toContain('detached')
    expect(rs[4]?.result).toMatch(/^\/tmp$/m)
    expect(rs[6]?.result).toMatch(/^\/\nmine$/m)
    // five quick commands (under a second each when nothing blocks); 10x guard
    expect(took).toBeLessThan(50_000)
    await service.closeSession({ sessionId: id })
  }, 120_000)

  it('a SIGSTOPped agent ends the call at its timeout, the guest is replaced and the next call works', async () => {
    const id = await open()
    await service.submit({ sessionId: id, op: { type: 'set_mode', mode: 'agent' } })
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'kill -STOP $PPID; sleep 100', timeout_ms: 2000 } }] })
    const t0 = Date.now()
    const evs = await turn(id, 'stop the agent')
    const took = Date.now() - t0
    const first = guestId(id)
    expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'error' })
    expect(evs.find((e) => e.type === 'error')).toMatchObject({ code: 'guest_failed', message: expect.stringMatching(/stopped answering/) })
    // timeout 2 s + host grace + the liveness ping; guard 10x
    expect(took).toBeLessThan(10 * (2000 + SPAWN_GRACE_MS + PING_CHECK_MS))
    expect(await waitFor(() => containers('dev.cortex.session', id).every((c) => !c.startsWith(first ?? '-')), 10_000)).toBe(true)
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo alive' } }] }, { text: 'ok' })
    const [r] = results(await turn(id, 'again'))
    expect(r).toMatchObject({ isError: false })
    expect(r?.result).toContain('alive')
    expect(guestId(id)).not.toBe(first)
    await service.closeSession({ sessionId: id })
  }, 120_000)

  it('a file tool on an agent stopped from the host ends at the call deadline and the guest is replaced', async () => {
    const id = await open()
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo warm' } }] }, { text: 'ok' })
    await turn(id, 'warm up')
    const first = guestId(id)
    // The turn reads its environment block through the guest before the model request, so the agent
    // is stopped once that request arrives (its reply streams slowly), before the model's read_file
    // reaches the agent. SIGSTOP from the host (docker exec), not from a tool call.
    script.push({ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }], chunkDelayMs: 1500 })
    const t0 = Date.now()
    const asked = server.requests.length
    const from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'read' } })
    expect(await waitFor(() => server.requests.length > asked, 60_000)).toBe(true)
    expect(of(id, from).some((e) => e.type === 'tool_call_started')).toBe(false)
    execFileSync('docker', ['exec', first!, 'sh', '-c', `for p in /proc/[0-9]*; do case "$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)" in "node /opt/cortex/agent.cjs"*) kill -STOP \${p#/proc/};; esac; done`])
    expect(of(id, from).some((e) => e.type === 'tool_call_started')).toBe(false) // stopped before the call could reach the agent
    await service.idle(id)
    const evs = of(id, from)
    const took = Date.now() - t0
    expect(evs.at(-1)).toMatchObject({ type: 'turn_ended', reason: 'error' })
    expect(evs.find((e) => e.type === 'error')).toMatchObject({ code: 'guest_failed', message: expect.stringMatching(/stopped answering/) })
    expect(took).toBeLessThan(10 * (CALL_DEADLINE_MS + PING_CHECK_MS))
    script.push({ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }, { text: 'ok' })
    const [r] = results(await turn(id, 'again'))
    expect(r).toMatchObject({ isError: false })
    expect(guestId(id)).not.toBe(first)
    await service.closeSession({ sessionId: id })
  }, 300_000)

  /** Start a turn whose bash call SIGSTOPs the guest agent, and resolve once that call runs. */
  async function startStoppedAgentCall(id: string): Promise<void> {
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'kill -STOP $PPID; sleep 300' } }] })
    const from = events.length
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'hang' } })
    expect(await waitFor(() => of(id, from).some((e) => e.type === 'tool_call_started'), 30_000)).toBe(true)
    await sleep(500)
  }

  it('Stop ends a call whose agent is stopped at once, and the wedged guest is replaced', async () => {
    const id = await open()
    await startStoppedAgentCall(id)
    const t0 = Date.now()
    await service.submit({ sessionId: id, op: { type: 'stop' } })
    await service.idle(id)
    const took = Date.now() - t0
    expect(of(id).at(-1)).toMatchObject({ type: 'turn_ended', reason: 'stopped' })
    expect(took).toBeLessThan(5_000)
    const first = guestId(id)
    // the unacknowledged kill marks the agent wedged: its container goes
    expect(await waitFor(() => !containers('dev.cortex.session', id).some((c) => c.startsWith(first ?? '-')), 30_000)).toBe(true)
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo alive' } }] }, { text: 'ok' })
    const [r] = results(await turn(id, 'again'))
    expect(r?.result).toContain('alive')
    await service.closeSession({ sessionId: id })
  }, 120_000)

  it('closeSession during a call on a stopped agent finishes within 5 s and leaves no container', async () => {
    const id = await open()
    await startStoppedAgentCall(id)
    expect(containers('dev.cortex.session', id, false)).toHaveLength(1)
    const t0 = Date.now()
    await service.closeSession({ sessionId: id })
    const took = Date.now() - t0
    expect(took).toBeLessThan(5_000)
    expect(containers('dev.cortex.session', id)).toEqual([])
  }, 120_000)
})
