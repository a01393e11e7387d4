// A provider's token counts are not trusted: through the session service, the real AI SDK client and
// the scripted model server reporting negative, absurd and fractional usage, every `usage` event
// carries bounded, non-negative whole counts marked `estimated`, and a goal's token budget counts the
// estimate (before: -60 million after one turn, so the budget could never be spent).
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CortexError } from '../../src/shared/errors'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { createSessionService } from '../../src/main/session'
import { MAX_REQUEST_TOKENS } from '../../src/main/harness/usage'
import { TEST_REPO_GID, TEST_REPO_UID } from '../support/repo-owner'
import { startScriptedModelServer } from '../support/scripted-model-server'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) => events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type)

describe('provider usage is validated', () => {
  it('negative, huge and fractional counts become a bounded estimate, said so; a goal budget counts it', async () => {
    const server = await startScriptedModelServer([
      { text: 'one', usage: { input: -30_000_000, output: -30_000_000 } },
      { text: 'two', usage: { input: 1e300, cached: 1e300, output: 2.5 } }
    ])
    const dataDir = mkdtempSync(join(tmpdir(), 'cortex-usage-valid-'))
    const repo = mkdtempSync(join(tmpdir(), 'cortex-usage-valid-repo-'))
    if (process.getuid?.() === 0) chownSync(repo, TEST_REPO_UID, TEST_REPO_GID)
    const service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'scripted', baseUrl: server.baseUrl },
      guests: { start: async () => Promise.reject(new CortexError('guest_failed', 'no guest in this test')) },
      eagerGuest: false
    })
    cleanups.push(() => server.close(), () => service.shutdown(), () => rmSync(dataDir, { recursive: true, force: true }), () => rmSync(repo, { recursive: true, force: true }))
    const envelopes: EventEnvelope[] = []
    service.onEvent((e) => envelopes.push(e))
    const { id } = await service.openSession({ repo, mode: 'agent' })
    await service.submit({ sessionId: id, op: { type: 'set_goal', text: 'keep going', turnBudget: 2, tokenBudget: 1_000_000 } })
    await service.idle(id)
    const events = envelopes.map((e) => e.event)

    expect(server.requests).toHaveLength(2)
    const usage = ofType(events, 'usage')
    expect(usage).toHaveLength(2)
    for (const u of usage) {
      expect(u.estimated).toBe(true)
      for (const n of [u.inputTokens, u.cachedInputTokens, u.outputTokens]) {
        expect(Number.isInteger(n) && n >= 0 && n <= MAX_REQUEST_TOKENS).toBe(true)
      }
      expect(u.inputTokens).toBeGreaterThan(0) // the prompt's estimate, not 0
      expect(u.cachedInputTokens).toBeLessThanOrEqual(u.inputTokens)
    }
    const ended = ofType(events, 'turn_ended')
    expect(ended.map((e) => e.usage?.estimated)).toEqual([true, true])
    const goals = ofType(events, 'goal_updated')
    expect(goals.map((g) => g.state)).toEqual(['active', 'active', 'budget_spent'])
    expect(goals[1]!.tokensUsed).toBe(usage[0]!.inputTokens + usage[0]!.outputTokens)
    expect(goals[2]!.tokensUsed).toBeGreaterThan(0)
    expect(goals[2]!.tokensUsed).toBeLessThan(1_000_000)
    expect(goals[2]!.reason).toMatch(/turn budget spent \(2\/2\)/)
  }, 120_000)
})
