/**
 * Unit tests of AgentClient over in-memory streams with a scripted fake agent (no Docker).
 */
import { PassThrough } from 'node:stream'
import { describe, expect, it, vi } from 'vitest'
import { CortexError } from '../../shared/errors'
import { ABORT_SETTLE_MS, AgentClient, CALL_DEADLINE_MS, KILL_ACK_MS, PING_CHECK_MS, SPAWN_GRACE_MS, deadlineOf } from './agent-client'
import { GuestCallError } from './guest'

function harness() {
  const toAgent = new PassThrough()
  const fromAgent = new PassThrough()
  const requests: Array<Record<string, unknown>> = []
  let buf = ''
  toAgent.setEncoding('utf8')
  toAgent.on('data', (d: string) => {
    buf += d
    const lines = buf.split('\n')
    buf = lines.pop() ?? ''
    for (const l of lines) requests.push(JSON.parse(l) as Record<string, unknown>)
  })
  const reply = (m: unknown): void => void fromAgent.write(JSON.stringify(m) + '\n')
  const client = new AgentClient(toAgent, fromAgent)
  const nextRequest = async (n: number): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 100 && requests.length < n; i++) await new Promise((r) => setTimeout(r, 5))
    return requests[n - 1] as Record<string, unknown>
  }
  return { client, reply, nextRequest, requests, fromAgent }
}

describe('AgentClient', () => {
  it('correlates results by id, out of order, and delivers output', async () => {
    const { client, reply, nextRequest } = harness()
    reply({ id: '*', type: 'ready', agentVersion: '1' })
    expect(await client.ready()).toBe('1')
    const chunks: string[] = []
    const a = client.call({ op: 'spawn', argv: ['x'], cwd: '/' }, { onOutput: (s, d) => chunks.push(`${s}:${d}`) })
    const b = client.call({ op: 'stat', path: '/x' })
    const ra = await nextRequest(1)
    const rb = await nextRequest(2)
    expect(ra.op).toBe('spawn')
    expect(rb.op).toBe('stat')
    reply({ id: rb.id, type: 'error', code: 'ENOENT', message: 'nope' })
    reply({ id: ra.id, type: 'output', stream: 'stderr', data: 'warn' })
    reply({ id: ra.id, type: 'result', result: { exitCode: 3 } })
    await expect(b).rejects.toMatchObject({ name: 'GuestCallError', code: 'ENOENT' })
    await expect(b).rejects.toBeInstanceOf(GuestCallError)
    expect(await a).toEqual({ exitCode: 3 })
    expect(chunks).toEqual(['stderr:warn'])
  })

  it('on abort sends kill for the spawn and rejects with AbortError once the spawn is reported ended', async () => {
    // Fake timers: the ABORT_SETTLE_MS fallback can never fire, so only the reported end can
    // settle the call. I/O is waited for in event-loop turns (setImmediate is not faked).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const { client, reply, requests } = harness()
      const turns = async (until: () => boolean): Promise<void> => {
        for (let i = 0; i < 1000 && !until(); i++) await new Promise((r) => setImmediate(r))
      }
      const ac = new AbortController()
      const p = client.call({ op: 'spawn', argv: ['sleep', '9'], cwd: '/' }, { signal: ac.signal })
      let rejected: unknown
      p.catch((err: unknown) => (rejected = err))
      await turns(() => requests.length >= 1)
      const spawnReq = requests[0] as Record<string, unknown>
      ac.abort()
      await turns(() => requests.length >= 2)
      const kill = requests[1] as Record<string, unknown>
      expect(kill).toMatchObject({ op: 'kill', target: spawnReq.id })
      reply({ id: kill.id, type: 'result', result: { killed: true } })
      await turns(() => false) // the kill's acknowledgement alone does not settle the spawn
      expect(rejected).toBeUndefined() // the group is not reported gone yet
      reply({ id: spawnReq.id, type: 'result', result: { exitCode: null, signal: 'SIGTERM', killed: true } })
      await turns(() => rejected !== undefined)
      expect(rejected).toMatchObject({ name: 'AbortError' })
    } finally {
      vi.useRealTimers()
    }
  })

  it('rejects in-flight and later calls when the agent output ends', async () => {
    const { client, fromAgent } = harness()
    client.describeExit = () => 'exit code 137'
    const p = client.call({ op: 'ping' })
    fromAgent.end()
    await expect(p).rejects.toBeInstanceOf(CortexError)
    await expect(p).rejects.toThrow(/guest agent exited.*exit code 137/)
    await expect(client.call({ op: 'ping' })).rejects.toMatchObject({ code: 'guest_failed' })
  })

  it('a spawn and a ping unanswered past their deadlines wedge the agent: every call fails and onWedged runs', async () => {
    const { client, nextRequest } = harness()
    const wedged: string[] = []
    client.onWedged = (reason) => wedged.push(reason)
    const other = client.call({ op: 'stat', path: '/x' })
    const p = client.call({ op: 'spawn', argv: ['x'], cwd: '/', timeoutMs: 50 }, { deadlineMs: 100 })
    await nextRequest(2)
    await expect(p).rejects.toMatchObject({
      code: 'guest_failed',
      message: expect.stringMatching(new RegExp(`stopped answering \\(spawn got no answer within 100 ms, nor a ping within ${PING_CHECK_MS} ms\\)`))
    })
    await expect(other).rejects.toMatchObject({ code: 'guest_failed' })
    expect(wedged).toHaveLength(1)
    expect(client.closed).toBe(true)
    expect(client.wedged).toBe(true)
  }, 20_000)

  it('a spawn past its deadline on an agent that answers ping fails alone (ETIMEDOUT) and is killed', async () => {
    const { client, reply, nextRequest } = harness()
    const p = client.call({ op: 'spawn', argv: ['x'], cwd: '/', timeoutMs: 50 }, { deadlineMs: 100 })
    const spawnReq = await nextRequest(1)
    const ping = await nextRequest(2)
    reply({ id: ping.id, type: 'result', result: { agentVersion: '1', node: 'v18', pid: 1 } })
    await expect(p).rejects.toMatchObject({ name: 'GuestCallError', code: 'ETIMEDOUT' })
    expect(await nextRequest(3)).toMatchObject({ op: 'kill', target: spawnReq.id })
    expect(client.closed).toBe(false)
  })

  it('the default deadline of a spawn is its timeout plus the grace; other ops get CALL_DEADLINE_MS', () => {
    expect(deadlineOf({ op: 'spawn', argv: ['x'], cwd: '/', timeoutMs: 2000 })).toBe(2000 + SPAWN_GRACE_MS)
    expect(deadlineOf({ op: 'read', path: '/x' })).toBe(CALL_DEADLINE_MS)
  })

  it('a file op past its deadline while the agent answers ping fails alone, as ETIMEDOUT', async () => {
    const { client, reply, nextRequest } = harness()
    const p = client.call({ op: 'read', path: '/fifo' }, { deadlineMs: 100 })
    await nextRequest(1)
    const ping = await nextRequest(2)
    expect(ping).toMatchObject({ op: 'ping' })
    reply({ id: ping.id, type: 'result', result: { agentVersion: '1', node: 'v18', pid: 1 } })
    await expect(p).rejects.toMatchObject({ name: 'GuestCallError', code: 'ETIMEDOUT' })
    expect(client.closed).toBe(false)
  })

  it('an aborted spawn whose kill is never acknowledged wedges the agent', async () => {
    const { client, nextRequest } = harness()
    const wedged: string[] = []
    client.onWedged = (reason) => wedged.push(reason)
    const ac = new AbortController()
    const p = client.call({ op: 'spawn', argv: ['sleep', '9'], cwd: '/' }, { signal: ac.signal })
    await nextRequest(1)
    const t0 = Date.now()
    ac.abort()
    await expect(p).rejects.toMatchObject({ name: 'AbortError' })
    expect(Date.now() - t0).toBeLessThan(ABORT_SETTLE_MS + 500) // the design bound (ADR 0007: an unacknowledged abort settles after ABORT_SETTLE_MS), not a speed figure
    for (let i = 0; i < 200 && wedged.length === 0; i++) await new Promise((r) => setTimeout(r, 50))
    expect(wedged).toEqual([`kill got no answer within ${KILL_ACK_MS} ms, nor a ping within ${PING_CHECK_MS} ms`])
    expect(client.closed).toBe(true)
  }, 20_000)
})
