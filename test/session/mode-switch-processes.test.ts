// A switch from Agent to a mode without bash ends what the model left running (ADR 0019), through
// the real session service, the real turn loop, a real Docker guest and the scripted model server:
// the model starts a setsid'd writer loop and a second one that ignores SIGTERM with a cleared
// environment; Stop in Agent mode leaves them running (dev servers outlive turns); the switch to
// Plan ends both (the files stop growing, no such process is left), reports how many in
// `mode_changed`, and the user's shell, opened before, still answers with its own job alive.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/shared/events'
import { skipWithoutDocker } from '../support/requirements'
import type { ScriptStep } from '../support/scripted-model-server'
import { size, sleep, until, useModeSwitchSession } from '../support/mode-switch-session'

/** The model's writer loop: leaves the bash call's process group and session. */
const TICK = `setsid sh -c 'while :; do date >> tick.txt; sleep 0.2; done' </dev/null >/dev/null 2>&1 &`
/** A harder one: ignores SIGTERM, clears its environment (no marker survives), double-forks. */
const TOCK = `( setsid sh -c 'trap "" TERM; exec env -i /bin/sh -c "while :; do echo x >> tock.txt; sleep 0.2; done"' </dev/null >/dev/null 2>&1 & ) &`

describe.skipIf(skipWithoutDocker())('a switch to a mode without bash ends the model’s processes', () => {
  const session = useModeSwitchSession()
  const { open, shell, events } = session

  it('Agent → Plan ends a setsid loop and a TERM-ignoring, env-cleared double fork; Stop does not; the user shell lives on', async () => {
    const script: ScriptStep[] = [{ toolCalls: [{ name: 'bash', args: { command: `${TICK}\n${TOCK}\necho started` } }] }, { text: 'running' }]
    const { id, repo } = await open(script)
    const user = await shell(id)
    expect(await user.ask('$(jobs | wc -l)', 'sleep 4747 & ')).toBe('1') // the user's own background job
    await session.service.submit({ sessionId: id, op: { type: 'user_message', text: 'start the loops' } })
    await session.service.idle(id)
    const tick = join(repo, 'tick.txt')
    const tock = join(repo, 'tock.txt')
    await until(() => size(tick) > 0 && size(tock) > 0, 'both loops to write')

    // Stop in Agent mode keeps background processes (dev servers outlive turns)
    await session.service.submit({ sessionId: id, op: { type: 'stop' } })
    const afterStop = size(tick)
    await until(() => size(tick) > afterStop, 'the loop to go on after Stop', 10_000)

    const from = events.length
    await session.service.submit({ sessionId: id, op: { type: 'set_mode', mode: 'plan' } })
    // the op resolves once mode_changed is out, after the processes are ended
    const changed = events.slice(from).map((e) => e.event).find((e): e is Extract<SessionEvent, { type: 'mode_changed' }> => e.type === 'mode_changed')
    const seen = JSON.stringify(changed)
    expect(changed, seen).toMatchObject({ mode: 'plan' })
    expect(changed?.endError, seen).toBeUndefined()
    // the two loops (what each was running when ended counts with it; a child forked in the instant
    // its loop died may be seen as an orphan of its own, hence 3)
    expect(changed?.endedProcesses, seen).toBeGreaterThanOrEqual(2)
    expect(changed?.endedProcesses, seen).toBeLessThanOrEqual(3)

    const sizes = [size(tick), size(tock)]
    await sleep(1000) // five loop periods: a window in which a surviving loop would write (nothing to wait for when none is left)
    expect([size(tick), size(tock)]).toEqual(sizes)
    // nothing of theirs is left in the guest; the user's shell answers and its own job lives
    expect(await user.ask(`$(ps -eo args | grep -c '[t]i''ck.txt\\|[t]o''ck.txt')`)).toBe('0')
    expect(await user.ask(`$(ps -eo args | grep -c '^sleep 474[7]')`)).toBe('1')
  }, 120_000)
})
