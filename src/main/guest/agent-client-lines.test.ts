/**
 * The host reads the agent's stdout (untrusted guest output) through the one bounded line splitter:
 * a message in many chunks, a multi-byte character split across chunks, and a line over the cap,
 * which ends the connection as guest_failed instead of growing the host's memory.
 */
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { AgentClient } from './agent-client'

function connect(maxLineBytes?: number): { client: AgentClient; fromAgent: PassThrough; sent: string[] } {
  const toAgent = new PassThrough()
  const fromAgent = new PassThrough()
  const sent: string[] = []
  toAgent.on('data', (d: Buffer) => sent.push(...d.toString('utf8').split('\n').filter(Boolean)))
  const client = new AgentClient(toAgent, fromAgent, () => undefined, maxLineBytes)
  return { client, fromAgent, sent }
}

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 2))
}

describe('AgentClient message lines', () => {
  it('reads a message sent in one-byte chunks, with a multi-byte character split across them', async () => {
    const { client, fromAgent, sent } = connect()
    fromAgent.write('{"id":"*","type":"ready","agentVersion":"1"}\n')
    await client.ready()
    const call = client.call({ op: 'stat', path: '/x' })
    await until(() => sent.length > 0)
    const id = (JSON.parse(sent[0]!) as { id: string }).id
    const bytes = Buffer.from(JSON.stringify({ id, type: 'result', result: { name: 'é€😀' } }) + '\n', 'utf8')
    for (const b of bytes) fromAgent.write(Buffer.from([b]))
    expect(await call).toEqual({ name: 'é€😀' })
  })

  it('ends the connection as guest_failed on a line over the cap, failing the calls in flight', async () => {
    const { client, fromAgent } = connect(1024)
    fromAgent.write('{"id":"*","type":"ready","agentVersion":"1"}\n')
    await client.ready()
    const call = client.call({ op: 'stat', path: '/x' })
    for (let i = 0; i < 8; i++) fromAgent.write('x'.repeat(200)) // no newline: a line that never ends
    await expect(call).rejects.toMatchObject({ code: 'guest_failed', message: expect.stringContaining('over 1024 bytes') })
    expect(client.closed).toBe(true)
  })
})
