/**
 * Web host over real sockets on 127.0.0.1: static serving with its security headers, and the
 * WebSocket's refusals (missing/wrong token, foreign/missing Origin, wrong path) and its contract
 * dispatch and event push, using the real `ws` client against an in-test CortexApi.
 */
import { noCheckpoints } from '../../test/support/no-checkpoints'
import { noShell } from '../../test/support/no-shell'
import { noDesk } from '../../test/support/no-desk'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { connect as tcpConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { parseRequest, type CortexApi } from '../shared/contract'
import { CortexError } from '../shared/errors'
import type { EventEnvelope } from '../shared/events'
import { startWebHost, type WebHost } from './web-host'

/** An in-test CortexApi that validates its inputs like the session service (parseRequest). */
function fakeApi(): CortexApi & { emit(e: EventEnvelope): void; calls: unknown[] } {
  const listeners = new Set<(e: EventEnvelope) => void>()
  const calls: unknown[] = []
  return {
    calls,
    emit: (e) => listeners.forEach((l) => l(e)),
    async openSession(raw) {
      const input = parseRequest('openSession', raw)
      calls.push(input)
      if (input.repo === '/missing') throw new CortexError('repo_invalid', 'no such folder: /missing')
      return { id: 's1', repo: input.repo, mode: input.mode ?? 'agent', sandbox: input.sandbox ?? 'workspace-write', createdAt: 1, running: false }
    },
    async submit(raw) {
      const input = parseRequest('submit', raw)
      calls.push(input)
      return { ok: true }
    },
    async sessionEvents() {
      return []
    },
    async listModels() {
      return { current: { provider: 'openai-compatible', model: 'm' }, models: [] }
    },
    async listCommands() {
      return { commands: [] }
    },
    async resumeSession() {
      throw new CortexError('session_not_found', 'no stored session')
    },
    async closeSession() {
      return { ok: true }
    },
    async listSessions() {
      return []
    },
    async listApprovalRules() {
      return []
    },
    async removeApprovalRule() {
      return { ok: true }
    },
    ...noCheckpoints(),
    ...noShell(),
    ...noDesk(),
    onEvent(l) {
      listeners.add(l)
      return () => void listeners.delete(l)
    }
  }
}

/** Try to open a WebSocket; resolves with the HTTP status of a refusal, or the open socket. */
function connect(url: string, origin?: string): Promise<{ status: number } | { ws: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, origin === undefined ? {} : { origin })
    ws.once('open', () => resolve({ ws }))
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 })
      res.resume()
      ws.terminate()
    })
    ws.once('error', (err) => reject(err))
  })
}

function httpGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

function nextFrame(ws: WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)) as Record<string, unknown>)))
}

describe('web host', () => {
  let dir: string
  let host: WebHost
  const api = fakeApi()

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cortex-web-'))
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Cortex</title>')
    writeFileSync(join(tmpdir(), 'cortex-web-secret.txt'), 'secret')
    host = await startWebHost({ api, rendererDir: dir, port: 0 })
  })
  afterAll(async () => {
    await host.close()
    rmSync(dir, { recursive: true, force: true })
    rmSync(join(tmpdir(), 'cortex-web-secret.txt'), { force: true })
  })

  it('refuses to start without a built renderer', async () => {
    await expect(startWebHost({ api, rendererDir: join(dir, 'nope') })).rejects.toThrow(/renderer build not found/)
  })

  it('binds 127.0.0.1 on a free port and puts the token in the URL', () => {
    expect(host.port).toBeGreaterThan(0)
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/?token=${host.token}`)
    expect(host.token).toMatch(/^[0-9a-f]{64}$/)
  })

  it('serves the renderer with CSP and no-sniff headers, and nothing outside its folder', async () => {
    const index = await httpGet(host.url)
    expect(index.status).toBe(200)
    expect(index.body).toContain('<title>Cortex</title>')
    expect(String(index.headers['content-security-policy'])).toContain(`connect-src 'self' ws://127.0.0.1:${host.port}`)
    expect(index.headers['x-content-type-options']).toBe('nosniff')
    expect((await httpGet(`${host.origin}/..%2fcortex-web-secret.txt`)).status).toBe(404)
    expect((await httpGet(`${host.origin}/nope.js`)).status).toBe(404)
  })

  it('refuses HTTP requests with a foreign Host header (DNS rebinding)', async () => {
    expect((await httpGet(host.url, { Host: `evil.example:${host.port}` })).status).toBe(421)
  })

  it('refuses a WebSocket with a missing or wrong token (401)', async () => {
    expect(await connect(host.wsUrl, host.origin)).toEqual({ status: 401 })
    expect(await connect(`${host.wsUrl}?token=wrong`, host.origin)).toEqual({ status: 401 })
    expect(await connect(`${host.wsUrl}?token=${host.token}x`, host.origin)).toEqual({ status: 401 })
  })

  it('refuses a WebSocket with a foreign or missing Origin (403) and other paths (404)', async () => {
    const url = `${host.wsUrl}?token=${host.token}`
    expect(await connect(url, 'http://evil.example')).toEqual({ status: 403 })
    expect(await connect(url, `http://localhost:${host.port}`)).toEqual({ status: 403 })
    expect(await connect(url)).toEqual({ status: 403 })
    expect(await connect(`ws://127.0.0.1:${host.port}/other?token=${host.token}`, host.origin)).toEqual({ status: 404 })
  })

  it('dispatches contract requests with zod validation and pushes events', async () => {
    const res = await connect(`${host.wsUrl}?token=${host.token}`, host.origin)
    if (!('ws' in res)) throw new Error(`refused: ${res.status}`)
    const { ws } = res
    try {
      ws.send(JSON.stringify({ kind: 'request', id: 1, method: 'openSession', input: { repo: '/tmp/r' } }))
      expect(await nextFrame(ws)).toEqual({
        kind: 'response',
        id: 1,
        result: { ok: true, value: { id: 's1', repo: '/tmp/r', mode: 'agent', sandbox: 'workspace-write', createdAt: 1, running: false } }
      })
      expect(api.calls.at(-1)).toEqual({ repo: '/tmp/r', mode: 'agent', sandbox: 'workspace-write', approvalPolicy: 'never' })

      ws.send(JSON.stringify({ kind: 'request', id: 2, method: 'submit', input: { sessionId: 's1', op: { type: 'nope' } } }))
      const bad = await nextFrame(ws)
      expect(bad).toMatchObject({ id: 2, result: { ok: false, error: { code: 'invalid_input' } } })

      ws.send(JSON.stringify({ kind: 'request', id: 3, method: 'constructor', input: {} }))
      expect(await nextFrame(ws)).toMatchObject({ id: 3, result: { ok: false, error: { code: 'invalid_input' } } })

      ws.send(JSON.stringify({ kind: 'request', id: 4, method: 'openSession', input: { repo: '/missing' } }))
      expect(await nextFrame(ws)).toEqual({
        kind: 'response',
        id: 4,
        result: { ok: false, error: { code: 'repo_invalid', message: 'no such folder: /missing' } }
      })

      const envelope: EventEnvelope = { sessionId: 's1', seq: 1, time: 2, event: { type: 'text_delta', turnId: 't1', text: 'hi' } }
      const pushed = nextFrame(ws)
      api.emit(envelope)
      expect(await pushed).toEqual({ kind: 'event', envelope })
    } finally {
      ws.close()
    }
  })

  it('answers an upgrade whose request target is not a valid URL with 400 and keeps serving', async () => {
    const raw = (target: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const sock = tcpConnect(host.port, '127.0.0.1')
        let out = ''
        sock.setEncoding('utf8')
        sock.setTimeout(3_000, () => sock.destroy())
        sock.on('data', (d: string) => (out += d))
        sock.on('close', () => resolve(out))
        sock.on('error', reject)
        sock.write(
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nOrigin: ${host.origin}\r\nUpgrade: websocket\r\n` +
            'Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'
        )
      })
    expect((await raw('http://[/ws')).split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request')
    expect((await httpGet(host.url)).status).toBe(200)
  })

  it('closes a client that sends a malformed frame', async () => {
    const res = await connect(`${host.wsUrl}?token=${host.token}`, host.origin)
    if (!('ws' in res)) throw new Error(`refused: ${res.status}`)
    const closed = new Promise<number>((r) => res.ws.once('close', (code) => r(code)))
    res.ws.send('{not json')
    expect(await closed).toBe(1007)
  })
})
