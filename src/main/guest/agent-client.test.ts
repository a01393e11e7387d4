/**
 * Unit tests of AgentClient over in-memory streams with a scripted fake agent (no Docker).
 */
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { CortexError } from '../../shared/errors'
import { AgentClient } from './agent-client'
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

  it('on abort sends kill for the spawn and rejects with AbortError', async () => {
    const { client, nextRequest } = harness()
    const ac = new AbortController()
    const p = client.call({ op: 'spawn', argv: ['sleep', '9'], cwd: '/' }, { signal: ac.signal })
    const spawnReq = await nextRequest(1)
    ac.abort()
    await expect(p).rejects.toMatchObject({ name: 'AbortError' })
    const kill = await nextRequest(2)
    expect(kill).toMatchObject({ op: 'kill', target: spawnReq.id })
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
})
