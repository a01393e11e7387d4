// Hostile processes against the Agent → Plan switch (ADR 0019), through the real session service,
// turn loop, Docker guest and scripted model server: a pid hopper (each generation forks the next
// and exits, so every scan saw a pid already gone and the switch reported success while it kept
// writing) and a parent blocked in vfork (state D) on a stopped child (never 'all stopped', so both
// were left). Both are ended now (the guest is frozen at once, then the model's are killed); the
// user's shell jobs are thawed, and one the user had stopped stays stopped.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/shared/events'
import { skipWithoutDocker } from '../support/requirements'
import type { ScriptStep } from '../support/scripted-model-server'
import { size, sleep, until, useModeSwitchSession } from '../support/mode-switch-session'

describe.skipIf(skipWithoutDocker())('a switch to Plan ends processes that outran the scans', () => {
  const session = useModeSwitchSession()
  const { open, shell, events } = session

  /** A job in the user's shell that notes every SIGCONT it gets: a freeze of the guest shows as a line. */
  const WATCH = `bash -c 'trap "echo cont >> /tmp/conts" CONT; while :; do sleep 0.1; done' & `
  /** Each generation forks the next and exits at once; ignores TERM; writes hop.txt; bounded to 25 s. */
  const HOP = `setsid python3 -c 'import os,time,signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
end = time.time() + 25
n = 0
while time.time() < end:
    if os.fork() != 0:
        os._exit(0)
    n += 1
    if n % 200 == 0:
        open("hop.txt", "a").write("x")
' </dev/null >/dev/null 2>&1 &`
  /** A parent blocked in vfork (state D) on a child that ignores TERM and pauses; bounded by an alarm (25 s). */
  const VFORK = `setsid python3 -c 'import ctypes,signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
libc = ctypes.CDLL(None)
libc.alarm(25)
if libc.vfork() == 0:
    libc.pause()
    libc._exit(0)
' </dev/null >/dev/null 2>&1 &`

  it('a pid hopper and a vfork-blocked parent end; the user shell’s running job runs on, its stopped job stays stopped', async () => {
    const script: ScriptStep[] = [{ toolCalls: [{ name: 'bash', args: { command: `${HOP}\n${VFORK}\nsleep 1; echo started` } }] }, { text: 'running' }]
    const { id, repo } = await open(script)
    const user = await shell(id)
    const running = await user.ask('$!', 'sleep 4747 & ')
    const stopped = await user.ask('$!', 'sleep 4848 & kill -STOP $! ; ')
    await user.ask('$!', WATCH)
    await session.service.submit({ sessionId: id, op: { type: 'user_message', text: 'start them' } })
    await session.service.idle(id)
    const hop = join(repo, 'hop.txt')
    await until(() => size(hop) > 0, 'the hopper to write')
    expect(await user.ask(`$(ps -eo stat,args | grep -c '^D.*[p]ython3')`)).toBe('1') // the vfork parent

    const from = events.length
    await session.service.submit({ sessionId: id, op: { type: 'set_mode', mode: 'plan' } })
    const changed = events.slice(from).map((e) => e.event).find((e): e is Extract<SessionEvent, { type: 'mode_changed' }> => e.type === 'mode_changed')
    const seen = JSON.stringify(changed)
    expect(changed, seen).toMatchObject({ mode: 'plan' })
    expect(changed?.endError, seen).toBeUndefined()
    expect(changed?.endedProcesses, seen).toBeGreaterThanOrEqual(1)

    const after = size(hop)
    await sleep(1500) // a window in which a surviving writer would grow the file: nothing to wait for when none is left
    expect(size(hop)).toBe(after)
    expect(await user.ask(`$(ps -eo args | grep -c '^[p]ython3')`)).toBe('0')
    // the user's jobs: thawed after the freeze, and the one the user stopped is still stopped
    expect(await user.ask(`$(ps -o stat= -p ${running} | cut -c1)`)).toBe('S')
    expect(await user.ask(`$(ps -o stat= -p ${stopped} | cut -c1)`)).toBe('T')
    expect(await user.ask(`$(wc -l < /tmp/conts)`)).toBe('1') // the freeze, seen by the user's job
  }, 120_000)


  it('a plain switch does not freeze the guest: the user’s jobs get no SIGCONT, a foreground job is not taken for a Ctrl-Z', async () => {
    const loop = `setsid sh -c 'while :; do date >> tick.txt; sleep 0.2; done' </dev/null >/dev/null 2>&1 &`
    const script: ScriptStep[] = [{ toolCalls: [{ name: 'bash', args: { command: `${loop}\necho started` } }] }, { text: 'running' }]
    const { id, repo } = await open(script)
    const user = await shell(id)
    await user.ask('$!', WATCH)
    const busy = await shell(id)
    await busy.ask('$$')
    await session.service.shellInput({ shellId: busy.shellId, data: 'sleep 4949\r' })
    await session.service.submit({ sessionId: id, op: { type: 'user_message', text: 'start it' } })
    await session.service.idle(id)
    await until(() => size(join(repo, 'tick.txt')) > 0, 'the loop to write')
    const from = events.length
    await session.service.submit({ sessionId: id, op: { type: 'set_mode', mode: 'plan' } })
    const changed = events.slice(from).map((e) => e.event).find((e): e is Extract<SessionEvent, { type: 'mode_changed' }> => e.type === 'mode_changed')
    expect(changed, JSON.stringify(changed)).toMatchObject({ mode: 'plan', endedProcesses: 1 })
    expect(await user.ask(`$(cat /tmp/conts 2>/dev/null | wc -l)`)).toBe('0')
    expect(await user.ask(`$(ps -eo stat,args | grep '^[^ ]* *sleep 494[9]' | cut -c1)`)).toBe('S')
    expect(busy.output()).not.toMatch(/Stopped/)
  }, 120_000)
})
