/**
 * The browser transport (src/renderer/src/ws-client.ts) against the real web host on 127.0.0.1,
 * with the `ws` package's client as the socket: a request reported as failed is never sent after
 * the reconnect (in flight at the drop, or made while the host was down), reconnects back off with
 * jitter, and a stale token stops the retries with `unauthorized`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createApiStub, type CortexApi, type RequestName } from '../src/shared/contract'
import { backoffDelay } from '../src/shared/backoff'
import { authUrlOf, createWsApi, type ConnectionState, type SocketLike, type WsCortexApi } from '../src/renderer/src/ws-client'
import { startWebHost, type WebHost } from '../src/web'

let rendererDir: string
beforeAll(() => {
  rendererDir = mkdtempSync(join(tmpdir(), 'cortex-transport-'))
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>')
})
afterAll(() => rmSync(rendererDir, { recursive: true, force: true }))

/** A CortexApi recording every request; `listSessions` never answers (a request left in flight). */
function recordingApi(): CortexApi & { calls: { name: RequestName; input: unknown }[] } {
  const calls: { name: RequestName; input: unknown }[] = []
  const api = createApiStub(
    (name, input) => {
      calls.push({ name, input })
      if (name === 'listSessions') return new Promise(() => undefined)
      return Promise.resolve({ ok: true })
    },
    () => () => undefined
  )
  return Object.assign(api, { calls })
}

const clients: WsCortexApi[] = []
const hosts: WebHost[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.dispose()
  for (const h of hosts.splice(0)) await h.close()
})

function client(host: { wsUrl: string; origin: string }, token: string): WsCortexApi {
  const api = createWsApi(`${host.wsUrl}?token=${token}`, {
    connect: (u) => new WebSocket(u, { origin: host.origin }) as unknown as SocketLike,
    checkToken: async (u) => (await fetch(u)).status,
    baseDelayMs: 50,
    maxDelayMs: 200
  })
  clients.push(api)
  return api
}

async function until(api: WsCortexApi, wanted: ConnectionState): Promise<void> {
  await expect.poll(() => api.connection(), { timeout: 10_000 }).toBe(wanted)
}

describe('browser transport', () => {
  it('never sends a request it reported as failed once it reconnects', async () => {
    const first = recordingApi()
    const host = await startWebHost({ api: first, rendererDir, token: 't0k' })
    hosts.push(host)
    const api = client(host, 't0k')
    await until(api, 'open')

    // 1. in flight when the host goes away: rejected as disconnected
    const inFlight = api.listSessions({}).then(() => 'answered', (e: Error) => e.message)
    await expect.poll(() => first.calls.length).toBe(1)
    await host.close()
    hosts.length = 0
    expect(await inFlight).toMatch(/\[disconnected\]/)

    // 2. made while the host is down: rejected when the next attempt fails, never queued for later
    await until(api, 'closed')
    const whileDown = api.submit({ sessionId: 's1', op: { type: 'user_message', text: 'made while down' } })
    await expect(whileDown).rejects.toThrow(/\[disconnected\]/)

    // the host comes back on the same port: the client reconnects and sends only new requests
    const second = recordingApi()
    const again = await startWebHost({ api: second, rendererDir, token: 't0k', port: host.port })
    hosts.push(again)
    await until(api, 'open')
    await expect(api.closeSession({ sessionId: 'after' })).resolves.toEqual({ ok: true })
    expect(second.calls.map((c) => c.name)).toEqual(['closeSession'])
  })

  it('stops retrying after the host refuses its token, with state unauthorized', async () => {
    const api0 = recordingApi()
    const host = await startWebHost({ api: api0, rendererDir, token: 'right' })
    hosts.push(host)
    const states: ConnectionState[] = []
    const api = client(host, 'stale')
    api.onConnection((s) => states.push(s))
    const refused = api.listStoredSessions({}).then(() => 'answered', (e: Error) => e.message)
    await until(api, 'unauthorized')
    expect(await refused).toMatch(/\[disconnected\]|\[unauthorized\]/)
    await expect(api.closeSession({ sessionId: 'x' })).rejects.toThrow(/\[unauthorized\]/)
    const attempts = states.filter((s) => s === 'connecting').length
    await new Promise((r) => setTimeout(r, 600)) // several retry periods: none happens
    expect(states.filter((s) => s === 'connecting').length).toBe(attempts)
    expect(api0.calls).toEqual([])
    // the token check answers 204 for the right token
    expect((await fetch(authUrlOf(`${host.wsUrl}?token=right`))).status).toBe(204)
  })

  it('backs off exponentially with jitter inside [cap/2, cap]', () => {
    const seq = [0, 0.5, 0.999]
    for (let failures = 1; failures <= 8; failures++) {
      const cap = Math.min(10_000, 250 * 2 ** (failures - 1))
      const delays = seq.map((r) => backoffDelay(failures, () => r))
      for (const d of delays) {
        expect(d).toBeGreaterThanOrEqual(cap / 2)
        expect(d).toBeLessThanOrEqual(cap)
      }
      expect(new Set(delays).size).toBeGreaterThan(1) // jitter: different draws, different delays
    }
    expect(backoffDelay(50, () => 0.999)).toBeLessThanOrEqual(10_000)
  })
})
