/**
 * The desk and settings requests of the real session service (no guest needed): stored sessions
 * listed with the first message as title, renamed, deleted (refused while open), host folder names
 * for the picker (spaces, non-ASCII; never files); settings validated per field, saved to the data
 * folder, keys kept in the SecretStore and never returned, the new model used by sessions opened
 * afterwards, and Test connection against the scripted server and a closed port on 127.0.0.1.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createSessionService, refuseSessionsUntilConfigured, type SecretStore, type SessionService } from '../src/main/session'
import type { GuestProvider } from '../src/main/guest/guest'
import { CortexError } from '../src/shared/errors'
import { makeTestRepo } from './support/guest'
import { startScriptedModelServer, type ScriptedModelServer } from './support/scripted-model-server'

const noGuests: GuestProvider = { start: () => Promise.reject(new CortexError('guest_failed', 'no guests in this test')) }
const cleanup: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

async function stack(secrets?: SecretStore): Promise<{ service: SessionService; model: ScriptedModelServer; dataDir: string }> {
  const model = await startScriptedModelServer([{ text: 'First answer.' }, { text: 'Again.' }])
  const dataDir = mkdtempSync(join(tmpdir(), 'cortex-desk-'))
  const service = await createSessionService({
    dataDir,
    modelSettings: { provider: 'openai-compatible', modelId: 'scripted-model', baseUrl: model.baseUrl },
    guests: noGuests,
    eagerGuest: false,
    ...(secrets ? { secrets } : {})
  })
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }), () => model.close(), () => service.shutdown())
  return { service, model, dataDir }
}

function memorySecrets(): SecretStore & { keys: Map<string, string> } {
  const keys = new Map<string, string>()
  return { kind: 'safe_storage', keys, get: (p) => keys.get(p), set: (p, k) => void (k ? keys.set(p, k) : keys.delete(p)) }
}

describe('stored sessions', () => {
  it('lists them with the first message as title, renames, and deletes only closed ones', async () => {
    const { service } = await stack()
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const s = await service.openSession({ repo })
    await service.submit({ sessionId: s.id, op: { type: 'user_message', text: 'Explain   the\nrepository layout, please' } })
    await service.idle(s.id)
    let [listed] = await service.listStoredSessions({})
    expect(listed).toMatchObject({ id: s.id, title: 'Explain the repository layout, please', repo, mode: 'agent', open: true, model: 'scripted-model' })
    expect(listed?.lastActivity).toBeGreaterThanOrEqual(s.createdAt)

    await expect(service.deleteSession({ sessionId: s.id })).rejects.toMatchObject({ code: 'session_locked' })
    await service.renameSession({ sessionId: s.id, title: '  Layout tour ✓  ' })
    ;[listed] = await service.listStoredSessions({})
    expect(listed?.title).toBe('Layout tour ✓')
    await expect(service.renameSession({ sessionId: s.id, title: '   ' })).rejects.toMatchObject({ code: 'invalid_input' })
    await expect(service.renameSession({ sessionId: '../x', title: 'y' })).rejects.toMatchObject({ code: 'invalid_input' })

    await service.closeSession({ sessionId: s.id })
    expect((await service.listStoredSessions({}))[0]?.open).toBe(false)
    await service.deleteSession({ sessionId: s.id })
    expect(await service.listStoredSessions({})).toEqual([])
    await expect(service.deleteSession({ sessionId: s.id })).rejects.toMatchObject({ code: 'session_not_found' })
  })

  it('lists host folder names only, with spaces and non-ASCII characters', async () => {
    const { service } = await stack()
    const base = mkdtempSync(join(tmpdir(), 'cortex-dirs-'))
    cleanup.push(() => rmSync(base, { recursive: true, force: true }))
    mkdirSync(join(base, 'my repo ä'))
    mkdirSync(join(base, 'Ωmega'))
    writeFileSync(join(base, 'a file.txt'), 'x')
    const r = await service.listDirectories({ path: base })
    expect(r).toEqual({ path: base, parent: tmpdir(), names: ['my repo ä', 'Ωmega'], truncated: false })
    await expect(service.listDirectories({ path: 'relative/path' })).rejects.toMatchObject({ code: 'invalid_input' })
    await expect(service.listDirectories({ path: join(base, 'missing') })).rejects.toMatchObject({ code: 'invalid_input' })
  })
})

describe('settings', () => {
  it('refuses invalid values naming each field, and keys where they come from the environment', async () => {
    const { service, dataDir } = await stack()
    const err = await service.saveSettings({ settings: { baseUrl: 'ftp://x', warmPool: 9, streamIdleTimeoutS: 1 } }).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'invalid_input' })
    expect(String((err as Error).message)).toMatch(/settings\.baseUrl: .*http/)
    expect(String((err as Error).message)).toMatch(/settings\.warmPool: must be 0 to 8/)
    expect(String((err as Error).message)).toMatch(/settings\.streamIdleTimeoutS/)
    const view = await service.getSettings({})
    expect(view.keyStorage).toBe('environment')
    await expect(service.saveSettings({ settings: { provider: 'openai-compatible' } as never, apiKey: 'sk-test' })).rejects.toMatchObject({ code: 'invalid_input' })
    expect(view.file).toBe(join(dataDir, 'settings.json'))
  })

  it('keeps the key in the SecretStore, never returns it, and opens new sessions with the saved model', async () => {
    const secrets = memorySecrets()
    const { service, model, dataDir } = await stack(secrets)
    const saved = await service.saveSettings({ settings: { provider: 'openai-compatible', model: 'next-model', baseUrl: model.baseUrl } as never, apiKey: 'sk-secret-123' })
    expect(secrets.keys.get('openai-compatible')).toBe('sk-secret-123')
    expect(JSON.stringify(saved)).not.toContain('sk-secret-123')
    expect(saved).toMatchObject({ keySaved: true, keyStorage: 'safe_storage', inForce: { provider: 'openai-compatible', model: 'next-model', baseUrl: model.baseUrl } })
    expect(readFileSync(join(dataDir, 'settings.json'), 'utf8')).not.toContain('sk-secret-123')
    expect(JSON.stringify(await service.getSettings({}))).not.toContain('sk-secret-123')

    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const s = await service.openSession({ repo })
    await service.submit({ sessionId: s.id, op: { type: 'user_message', text: 'hi' } })
    await service.idle(s.id)
    const req = model.requests.find((r) => r.method === 'POST')
    expect((req?.body as { model?: string }).model).toBe('next-model')
    expect(req?.headers.authorization).toBe('Bearer sk-secret-123')
    expect((await service.listStoredSessions({}))[0]?.model).toBe('next-model')
  })

  it('tests the connection: the server answers (404 without a model list), a closed port does not', async () => {
    const { service, model } = await stack()
    const ok = await service.testConnection({ settings: { provider: 'openai-compatible', baseUrl: model.baseUrl } as never })
    expect(ok).toMatchObject({ ok: false, status: 404, models: [] })
    expect(ok.detail).toContain('reachable')
    expect(model.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models' })
    // a port nothing listens on: one a server just released
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const port = (probe.address() as AddressInfo).port
    await new Promise((r) => probe.close(r))
    const closed = await service.testConnection({ settings: { provider: 'openai-compatible', baseUrl: `http://127.0.0.1:${port}/v1` } as never })
    expect(closed).toMatchObject({ ok: false, models: [] })
    expect(closed.detail).toBe(`could not reach http://127.0.0.1:${port}/v1: ECONNREFUSED`)
  })

  it('an app started without a model connection refuses sessions until the settings are complete', async () => {
    const { service: inner, model } = await stack()
    const service = refuseSessionsUntilConfigured(inner, new CortexError('provider_config', 'openai-compatible needs a server URL: set CORTEX_BASE_URL'))
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    await expect(service.openSession({ repo })).rejects.toMatchObject({ code: 'provider_config' })
    await expect(service.openSession({ repo })).rejects.toThrow(/open Settings/)
    // incomplete (no model for openai-compatible): still refused
    const partial = await service.saveSettings({ settings: { provider: 'openai-compatible', baseUrl: model.baseUrl } })
    expect(partial.inForceError).toMatch(/model/)
    await expect(service.openSession({ repo })).rejects.toMatchObject({ code: 'provider_config' })
    await service.saveSettings({ settings: { provider: 'openai-compatible', baseUrl: model.baseUrl, model: 'set-in-settings' } })
    const s = await service.openSession({ repo })
    expect((await service.listStoredSessions({})).find((x) => x.id === s.id)?.model).toBe('set-in-settings')
  })
})
