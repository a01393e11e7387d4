// A session over a real Docker guest: Stop kills the command running in the guest (the guest
// stays), and a guest that dies (container killed) is replaced at the next tool call.
import { execFileSync } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'
import { eventually } from '../support/wait-until'

/** Wait until `pred()` holds or `ms` pass (a deadline, not a sleep); returns whether it held. */
const until = (pred: () => boolean, ms: number): Promise<boolean> => eventually(pred, ms, 50)

/** Whether a process whose command line contains `text` runs in container `id` (docker top). */
function runsIn(id: string | undefined, text: string): boolean {
  if (!id) return false
  try {
    return execFileSync('docker', ['top', id, '-eo', 'pid,args'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).includes(text)
  } catch {
    return false // not running (yet)
  }
}

describe.skipIf(skipWithoutDocker())('session over a Docker guest', () => {
  let server: ScriptedModelServer
  let service: SessionService
  let sessionId: string
  let events: EventEnvelope[]
  let script: ScriptStep[]

  // Each test gets its own model script, service, session and guest: none relies on another's.
  beforeEach(async () => {
    events = []
    script = []
    server = await startScriptedModelServer(script)
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    service = await createSessionService({
      dataDir: tempDir('cortex-rec-'),
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0 })
    })
    service.onEvent((e) => events.push(e))
    sessionId = (await service.openSession({ repo })).id
  })
  afterEach(async () => {
    await service?.shutdown()
    await server?.close()
  })

  const turn = async (text: string): Promise<SessionEvent[]> => {
    const from = events.length
    await service.submit({ sessionId, op: { type: 'user_message', text } })
    await service.idle(sessionId)
    return events.slice(from).map((e) => e.event)
  }
  const results = (evs: SessionEvent[]) =>
    evs.filter((e): e is Extract<SessionEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished')
  const guestId = () => {
    const ready = events.map((e) => e.event).filter((e) => e.type === 'guest_status' && e.state === 'ready').at(-1)
    return ready && ready.type === 'guest_status' ? ready.detail?.split(' ')[0] : undefined
  }

  it('Stop kills the running command in the guest and the guest stays', async () => {
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'sleep 300 # marker-sleep' } }] })
    await service.submit({ sessionId, op: { type: 'user_message', text: 'sleep' } })
    // Stop once the command runs in the guest (not a fixed pause after the call started)
    expect(await until(() => events.some((e) => e.event.type === 'tool_call_started'), 30_000)).toBe(true)
    expect(await until(() => runsIn(guestId(), 'sleep 300'), 30_000)).toBe(true)
    await service.submit({ sessionId, op: { type: 'stop' } })
    await service.idle(sessionId)
    expect(events.at(-1)?.event).toMatchObject({ type: 'turn_ended', reason: 'stopped' })
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'ps -eo args' } }] }, { text: 'checked' })
    const [ps] = results(await turn('check'))
    expect(ps?.isError).toBe(false)
    expect(ps?.result).not.toContain('marker-sleep')
  })

  it('replaces a guest whose container was killed, at the next tool call', async () => {
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo first' } }] }, { text: 'started' })
    expect(results(await turn('start the guest'))[0]?.result).toContain('first')
    const first = guestId()
    expect(first).toBeTruthy()
    execFileSync('docker', ['kill', first!])
    // the death is noticed (agent stream ends), then the next tool call attaches a new guest
    await until(() => events.some((e) => e.event.type === 'guest_status' && e.event.state === 'error'), 5_000)
    script.push({ toolCalls: [{ name: 'bash', args: { command: 'echo alive' } }] }, { text: 'ok' })
    const [r] = results(await turn('again'))
    expect(r).toMatchObject({ isError: false })
    expect(r?.result).toContain('alive')
    expect(guestId()).not.toBe(first)
  })
})
