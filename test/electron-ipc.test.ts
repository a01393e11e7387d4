/**
 * The Electron IPC adapter with `electron` mocked: one handler per contract request (derived from
 * the contract), sender-frame check, validation errors of the API as WireResults, answers, handler removal, and
 * event forwarding to the window's webContents.
 */
import { noCheckpoints } from './support/no-checkpoints'
import { noShell } from './support/no-shell'
import { noDesk } from './support/no-desk'
import { describe, expect, it, vi } from 'vitest'
import { parseRequest, REQUEST_NAMES, type CortexApi } from '../src/shared/contract'
import { CortexError } from '../src/shared/errors'
import type { EventEnvelope } from '../src/shared/events'

type Handler = (event: { senderFrame: unknown }, input: unknown) => Promise<unknown>
const handlers = vi.hoisted(() => new Map<string, Handler>())

vi.mock('electron', () => ({
  ipcMain: {
    handle: (channel: string, h: Handler) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`)
      handlers.set(channel, h)
    },
    removeHandler: (channel: string) => handlers.delete(channel)
  }
}))

const { forwardEvents, registerIpc } = await import('../src/main/ipc')

/** An in-test CortexApi that validates its inputs like the session service (parseRequest). */
function fakeApi(): CortexApi & { emit(e: EventEnvelope): void; inputs: unknown[] } {
  const listeners = new Set<(e: EventEnvelope) => void>()
  const inputs: unknown[] = []
  return {
    inputs,
    emit: (e) => listeners.forEach((l) => l(e)),
    openSession: async (raw) => {
      const input = parseRequest('openSession', raw)
      inputs.push(input)
      return { id: 's1', repo: input.repo, mode: input.mode ?? 'agent', sandbox: input.sandbox ?? 'workspace-write', createdAt: 0, running: false }
    },
    submit: async (raw) => {
      parseRequest('submit', raw)
      throw new CortexError('busy', 'a turn is already running')
    },
    sessionEvents: async () => [],
    listModels: async () => ({ current: { provider: 'openai-compatible', model: 'm' }, models: [] }),
    listCommands: async () => ({ commands: [] }),
    resumeSession: async () => {
      throw new CortexError('session_not_found', 'no stored session')
    },
    closeSession: async () => {
      throw new Error('disk on fire')
    },
    listSessions: async () => [],
    listApprovalRules: async () => [],
    removeApprovalRule: async () => ({ ok: true as const }),
    ...noCheckpoints(),
    ...noShell(),
    ...noDesk(),
    onEvent: (l) => {
      listeners.add(l)
      return () => void listeners.delete(l)
    }
  }
}

const trusted = { url: 'file:///app/out/renderer/index.html' }
const logger = { warn: vi.fn(), error: vi.fn() }

describe('registerIpc', () => {
  it('registers exactly one cortex:<name> handler per contract request and removes them', () => {
    const dispose = registerIpc({ api: fakeApi(), isTrustedFrame: () => true, logger })
    expect([...handlers.keys()].sort()).toEqual(REQUEST_NAMES.map((n) => `cortex:${n}`).sort())
    dispose()
    expect(handlers.size).toBe(0)
  })

  it('answers with WireResults: value, validation error, CortexError code, internal', async () => {
    const api = fakeApi()
    const dispose = registerIpc({ api, isTrustedFrame: (f) => f === trusted, logger })
    const call = (name: string, input: unknown, frame: unknown = trusted): Promise<unknown> =>
      (handlers.get(`cortex:${name}`) as Handler)({ senderFrame: frame }, input)
    try {
      expect(await call('openSession', { repo: '/r' })).toEqual({
        ok: true,
        value: { id: 's1', repo: '/r', mode: 'agent', sandbox: 'workspace-write', createdAt: 0, running: false }
      })
      expect(api.inputs).toEqual([{ repo: '/r', mode: 'agent', sandbox: 'workspace-write', approvalPolicy: 'never' }])
      expect(await call('openSession', { repo: '' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
      expect(await call('submit', { sessionId: 's1', op: { type: 'explode' } })).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
      expect(await call('submit', { sessionId: 's1', op: { type: 'stop' } })).toEqual({
        ok: false,
        error: { code: 'busy', message: 'a turn is already running' }
      })
      expect(await call('closeSession', { sessionId: 's1' })).toEqual({ ok: false, error: { code: 'internal', message: 'disk on fire' } })
      expect(logger.error).toHaveBeenCalled()
    } finally {
      dispose()
    }
  })

  it('refuses requests from a frame other than our window', async () => {
    const api = fakeApi()
    const dispose = registerIpc({ api, isTrustedFrame: (f) => f === trusted, logger })
    try {
      const h = handlers.get('cortex:openSession') as Handler
      expect(await h({ senderFrame: { url: 'https://evil.example/' } }, { repo: '/r' })).toMatchObject({
        ok: false,
        error: { code: 'forbidden' }
      })
      expect(await h({ senderFrame: null }, { repo: '/r' })).toMatchObject({ ok: false, error: { code: 'forbidden' } })
      expect(api.inputs).toEqual([])
      expect(logger.warn).toHaveBeenCalled()
    } finally {
      dispose()
    }
  })
})

describe('forwardEvents', () => {
  it('sends each envelope on cortex:event to a live window and drops it otherwise', () => {
    const api = fakeApi()
    const sent: unknown[][] = []
    let live = true
    const wc = { isDestroyed: () => !live, send: (...args: unknown[]) => sent.push(args) }
    const off = forwardEvents(api, () => wc as never)
    const envelope: EventEnvelope = { sessionId: 's', seq: 1, time: 0, event: { type: 'mode_changed', mode: 'plan' } }
    api.emit(envelope)
    live = false
    api.emit({ ...envelope, seq: 2 })
    off()
    live = true
    api.emit({ ...envelope, seq: 3 })
    expect(sent).toEqual([['cortex:event', envelope]])
  })
})
