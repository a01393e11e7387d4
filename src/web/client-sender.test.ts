/**
 * The web host's per-client bound (client-sender.ts) over real sockets on 127.0.0.1 with the real
 * `ws` client and lowered limits: a client whose TCP socket is paused loses only its own output
 * events, is disconnected once it has been behind for the stall time (one warn record, its unread
 * bytes bounded), while a client that reads gets every event; and close() is bounded with a paused
 * client connected. No Docker needed (the built-serve flood test is test/acceptance/serve-backpressure.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createApiStub } from '../shared/contract'
import type { EventEnvelope } from '../shared/events'
import type { Logger } from '../shared/logger-types'
import { startWebHost, type WebHost } from './web-host'

const LIMITS = { dropBytes: 512 * 1024, maxBytes: 64 * 1024 * 1024, stallMs: 1500 }
const CHUNK = 'y\n'.repeat(32 * 1024) // 64 KiB of shell output per event

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cortex-sender-'))
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A web host whose API only emits what the test pushes; `warnings` records the logger's warn calls. */
async function floodHost(): Promise<{ host: WebHost; push(n: number): Promise<void>; warnings: Array<{ msg: string; fields?: Record<string, unknown> }> }> {
  const listeners = new Set<(e: EventEnvelope) => void>()
  const api = createApiStub(
    () => Promise.resolve({ ok: true }),
    (l) => {
      listeners.add(l)
      return () => void listeners.delete(l)
    }
  )
  const warnings: Array<{ msg: string; fields?: Record<string, unknown> }> = []
  const noop = (): void => undefined
  const logger = { debug: noop, info: noop, error: noop, warn: (msg: string, fields?: Record<string, unknown>) => warnings.push({ msg, fields }) } as unknown as Logger
  const host = await startWebHost({ api, rendererDir: dir, logger, clientLimits: LIMITS })
  let seq = 0
  const push = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const e: EventEnvelope = { sessionId: 's1', seq: ++seq, time: Date.now(), event: { type: 'shell_output', shellId: 'sh1', data: CHUNK } }
      for (const l of listeners) l(e)
      await new Promise((r) => setImmediate(r)) // let the sockets drain between events, like a real flood
    }
  }
  return { host, push, warnings }
}

async function client(host: WebHost): Promise<{ ws: WebSocket; received: () => number; pause: () => void }> {
  const ws = new WebSocket(`${host.wsUrl}?token=${host.token}`, { origin: host.origin })
  await new Promise((r, j) => ws.once('open', r).once('error', j))
  ws.on('error', () => undefined)
  let received = 0
  ws.on('message', () => received++)
  return { ws, received: () => received, pause: () => (ws as unknown as { _socket: Socket })._socket.pause() }
}

describe('web host: a client that stops reading', () => {
  it('loses only its own output events, then is disconnected; a reading client gets everything', async () => {
    const { host, push, warnings } = await floodHost()
    try {
      const reader = await client(host)
      const paused = await client(host)
      paused.pause()
      await expect.poll(() => host.clientCount()).toBe(2)
      const deadline = Date.now() + 20_000 // hang guard (the stall time is 1.5 s)
      let pushed = 0
      // at most 3,000 events (~190 MiB): without the bound the paused client would hold all of it
      while (host.clientCount() === 2 && Date.now() < deadline && pushed < 3000) {
        await push(20)
        pushed += 20
      }
      expect(host.clientCount()).toBe(1)
      expect(warnings.map((w) => w.msg)).toEqual(['slow web client disconnected'])
      const fields = warnings[0]!.fields!
      // the client's unread bytes stayed near the drop bound, not the whole flood
      expect(fields.unreadBytes as number).toBeLessThan(LIMITS.dropBytes + 4 * CHUNK.length)
      expect(fields.droppedFrames as number).toBeGreaterThan(0)
      expect(pushed * CHUNK.length).toBeGreaterThan(fields.unreadBytes as number)
      await expect.poll(() => reader.received(), { timeout: 30_000 }).toBe(pushed)
      reader.ws.close()
    } finally {
      await host.close()
    }
  }, 60_000)

  it('close() resolves within about a second with a paused client connected', async () => {
    const { host, push } = await floodHost()
    const paused = await client(host)
    paused.pause()
    await push(10)
    const t0 = Date.now()
    await host.close()
    const took = Date.now() - t0
    paused.ws.terminate()
    expect(took).toBeLessThan(5_000) // hang guard: the close frame is never read; CLOSE_GRACE_MS is 1 s
  }, 60_000)
})
