/**
 * boundedShutdown over a real Docker guest: a close that never finishes (a hung session) is given
 * up on after closeMs, and every guest of this process is force-removed anyway — even one whose
 * agent is SIGSTOPped. Times are hang guards (10x expected).
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import type { PingResult } from '../../shared/guest-protocol'
import { makeTestRepo, startTestGuest } from '../../../test/support/guest'
import { skipWithoutDocker } from '../../../test/support/requirements'
import { boundedShutdown } from './bounded-shutdown'

const exists = (id: string): boolean => execFileSync('docker', ['ps', '-a', '-q', '--no-trunc', '--filter', `id=${id}`], { encoding: 'utf8' }).trim() !== ''

describe.skipIf(skipWithoutDocker())('boundedShutdown', () => {
  it('gives up on a close that never ends and force-removes this process\'s guests', async () => {
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const guest = await startTestGuest(repo)
    // the agent is stopped from the host: nothing in the guest answers any more
    const { pid } = (await guest.call({ op: 'ping' })) as PingResult
    execFileSync('docker', ['exec', guest.id, 'kill', '-STOP', String(pid)])
    expect(exists(guest.id)).toBe(true)
    const t0 = Date.now()
    await boundedShutdown(() => new Promise(() => undefined), { closeMs: 300, removeMs: 3000 })
    const took = Date.now() - t0
    expect(exists(guest.id)).toBe(false)
    expect(took).toBeGreaterThanOrEqual(290) // it did wait for the close (300 ms) before giving up on it
    expect(took).toBeLessThan(10 * 3300) // hang guard: the close and removal deadlines (0.3 + 3 s), 10x
  }, 120_000)
})
