// The goal's check command runs code the model may have written (a test suite, a script), so it runs
// only when the mode in force allows commands: in Plan mode goal_done's check does not run, the model
// gets an error result saying why, and the goal stays open; in Agent mode the same check runs.
// Through the real session service, turn loop, a real Docker guest and the scripted model server.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { Mode } from '../../src/shared/modes'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server'
import { tempDir } from '../support/temp-dir'

/** The user's check: leaves a trace in the repository when it runs, then passes. */
const CHECK = 'touch check-ran.txt && true'

describe.skipIf(skipWithoutDocker())("a goal's check runs only where commands may run", () => {
  let service: SessionService | undefined
  let server: ScriptedModelServer | undefined
  afterEach(async () => {
    await service?.shutdown()
    await server?.close()
    service = undefined
    server = undefined
  })

  async function goalTurn(mode: Mode): Promise<{ repo: string; events: SessionEvent[] }> {
    ensureAgentBundle()
    server = await startScriptedModelServer([{ toolCalls: [{ name: 'goal_done', args: { evidence: 'looked at it' } }] }, { text: 'ok' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    service = await createSessionService({
      dataDir: tempDir('cortex-goalmode-'),
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0 })
    })
    const envelopes: EventEnvelope[] = []
    service.onEvent((e) => envelopes.push(e))
    const { id } = await service.openSession({ repo, mode })
    await service.submit({ sessionId: id, op: { type: 'set_goal', text: 'make it better', turnBudget: 1, check: CHECK } })
    await service.idle(id)
    return { repo, events: envelopes.filter((e) => e.sessionId === id).map((e) => e.event) }
  }

  const goalResult = (events: SessionEvent[]) =>
    events.find((e): e is Extract<SessionEvent, { type: 'tool_call_finished' }> => e.type === 'tool_call_finished' && e.name === 'goal_done')

  it('in Plan mode the check does not run and the goal is not met', async () => {
    const s = await goalTurn('plan')
    const result = goalResult(s.events)
    expect(result?.isError).toBe(true)
    expect(result?.result).toMatch(/does not allow/)
    expect(existsSync(join(s.repo, 'check-ran.txt'))).toBe(false)
    expect(s.events.some((e) => e.type === 'goal_updated' && e.state === 'met')).toBe(false)
  }, 120_000)

  it('in Agent mode the same check runs and the goal is met', async () => {
    const s = await goalTurn('agent')
    expect(goalResult(s.events)?.isError).toBeFalsy()
    expect(existsSync(join(s.repo, 'check-ran.txt'))).toBe(true)
    expect(s.events.some((e) => e.type === 'goal_updated' && e.state === 'met')).toBe(true)
  }, 120_000)
})
