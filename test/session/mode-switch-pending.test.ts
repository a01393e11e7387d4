// A switch to Plan stops a call that was already dispatched (issue 16 item 2, ADR 0019): a call
// waiting for its approval card, for the guest to start, or for the turn-start snapshot does not run
// after `mode_changed`, gets a refusal the model reads, and its approval card is withdrawn (an answer
// to it is refused with a clear error); nor does one whose own lookups in the guest were under way.
// Through the session service, the real turn loop, a real Docker guest (its start, the checkpoint
// guest's or a path lookup held by the test) and the scripted model server.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalPolicy } from '../../src/shared/approvals'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import type { GuestProvider } from '../../src/main/guest/guest'
import { checkpointsDirOf, createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { sentToolResults, startScriptedModelServer, type ScriptedModelServer, type ScriptStep } from '../support/scripted-model-server'
import { waitUntil } from '../support/wait-until'

type Ev<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>

/** A gate the test opens: `wait()` resolves once `open()` was called. */
function gate(): { wait(): Promise<void>; open(): void; waited(): boolean } {
  let open!: () => void
  let waited = false
  const opened = new Promise<void>((r) => (open = r))
  return { wait: () => ((waited = true), opened), open: () => open(), waited: () => waited }
}

describe.skipIf(skipWithoutDocker())('a switch to Plan stops calls already dispatched', () => {
  let server: ScriptedModelServer | undefined
  let service: SessionService | undefined
  let dataDir: string | undefined
  let events: EventEnvelope[] = []
  const gates: Array<ReturnType<typeof gate>> = []

  beforeAll(() => void ensureAgentBundle())
  afterEach(async () => {
    for (const g of gates.splice(0)) g.open() // nothing stays held
    await service?.shutdown()
    await server?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
    service = server = dataDir = undefined
    events = []
  })

  const evs = (): SessionEvent[] => events.map((e) => e.event)
  const of = <T extends SessionEvent['type']>(type: T): Array<Ev<T>> => evs().filter((e): e is Ev<T> => e.type === type)
  const until = (check: () => boolean, what: string, ms = 60_000): Promise<void> => waitUntil(check, ms, what, 20)
  const writeCall: ScriptStep = { toolCalls: [{ name: 'write_file', args: { path: 'late.txt', content: 'written in plan mode\n' } }] }

  /** A service over the Docker provider; `hold` wraps its guest starts and its checkpoint guest. */
  const open = async (policy: ApprovalPolicy, hold: { start?: ReturnType<typeof gate>; checkpoint?: ReturnType<typeof gate>; lookup?: ReturnType<typeof gate> } = {}) => {
    server = await startScriptedModelServer([writeCall, { text: 'understood' }])
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    dataDir = mkdtempSync(join(tmpdir(), 'cortex-modepend-'))
    const docker = createDefaultGuestProvider({ warmPool: 0, checkpointsDir: checkpointsDirOf(dataDir) })
    const guests: GuestProvider = {
      start: async (opts) => {
        await hold.start?.wait()
        const g = await docker.start(opts)
        const lookup = hold.lookup
        if (!lookup) return g
        // the write_file tool's own path lookup of late.txt waits for the test
        return new Proxy(g, {
          get(target, p) {
            if (p === 'call') {
              return async (body: { op?: string; path?: string }, o?: never) => {
                if (body.op === 'realpath' && body.path?.endsWith('late.txt')) await lookup.wait()
                return target.call(body as never, o)
              }
            }
            const v: unknown = Reflect.get(target, p, target)
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
          }
        })
      },
      close: () => docker.close(),
      checkpointLease: (r) => {
        const lease = docker.checkpointLease!(r)
        return lease && { guest: async (signal) => (await hold.checkpoint?.wait(), lease.guest(signal)), release: () => lease.release() }
      }
    }
    for (const g of [hold.start, hold.checkpoint, hold.lookup]) if (g) gates.push(g)
    service = await createSessionService({ dataDir, modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl }, guests })
    service.onEvent((e) => events.push(e))
    const { id } = await service.openSession({ repo, mode: 'agent', approvalPolicy: policy })
    return { id, repo }
  }

  /** The call was refused with the switch named, the file is not there, and the model got the refusal. */
  const expectRefused = async (id: string, repo: string, waited: string | RegExp) => {
    await service!.idle(id)
    const [finished] = of('tool_call_finished')
    expect(finished).toMatchObject({ name: 'write_file', isError: true })
    if (typeof waited === 'string') expect(finished!.result).toContain(`the user switched to plan mode while this write_file call waited for ${waited}; it was not run`)
    else expect(finished!.result).toMatch(new RegExp(`the user switched to plan mode while this write_file call waited for (${waited.source}); it was not run`))
    expect(existsSync(join(repo, 'late.txt'))).toBe(false)
    expect(sentToolResults(server!.requests[1]!)[0]?.output).toContain('it was not run')
    expect(of('mode_changed')).toMatchObject([{ mode: 'plan' }])
  }

  it('a call waiting for its approval card: the card is withdrawn, Allow once is refused, nothing is written', async () => {
    const { id, repo } = await open('changes')
    await service!.submit({ sessionId: id, op: { type: 'user_message', text: 'write it' } })
    await until(() => of('approval_requested').length > 0, 'the approval request')
    const [req] = of('approval_requested')
    await service!.submit({ sessionId: id, op: { type: 'set_mode', mode: 'plan' } })
    // withdrawn before mode_changed is reported
    const withdrawn = of('approval_resolved').find((e) => e.requestId === req!.requestId)
    expect(withdrawn).toMatchObject({ outcome: 'withdrawn', reason: 'the user switched to plan mode; the call was not run' })
    const types = evs().map((e) => e.type)
    expect(types.indexOf('approval_resolved')).toBeLessThan(types.indexOf('mode_changed'))
    // the user's late Allow once is refused with a clear error and runs nothing
    await expect(service!.submit({ sessionId: id, op: { type: 'approval_decision', requestId: req!.requestId, decision: 'allow_once' } })).rejects.toThrow(
      /was withdrawn \(the user switched to plan mode; the call was not run\); the answer was ignored/
    )
    await expectRefused(id, repo, 'its approval')
  }, 120_000)

  it('a call waiting for the guest to start does not run once it starts', async () => {
    const start = gate()
    const { id, repo } = await open('never', { start })
    await service!.submit({ sessionId: id, op: { type: 'user_message', text: 'write it' } })
    await until(() => of('tool_call_started').length > 0 && start.waited(), 'the call to wait for the guest')
    await service!.submit({ sessionId: id, op: { type: 'set_mode', mode: 'plan' } })
    expect(of('mode_changed')).toMatchObject([{ mode: 'plan' }])
    start.open()
    // the PreToolUse hook lookup (extensions/hooks) may still be under way when the guest is first
    // waited for: the switch then lands at the approval step's recheck; either way the call is refused
    await expectRefused(id, repo, /its approval|the guest \(its start and the turn-start snapshot\)/)
  }, 180_000)

  it('a call whose own checks in the guest are under way when the switch comes writes nothing', async () => {
    const lookup = gate()
    const { id, repo } = await open('never', { lookup })
    await service!.submit({ sessionId: id, op: { type: 'user_message', text: 'write it' } })
    await until(() => lookup.waited(), 'the write_file call to look its path up', 120_000)
    await service!.submit({ sessionId: id, op: { type: 'set_mode', mode: 'plan' } })
    expect(of('mode_changed')).toMatchObject([{ mode: 'plan' }])
    lookup.open()
    await expectRefused(id, repo, 'its own checks in the guest')
  }, 180_000)

  it('a call waiting for the turn-start snapshot does not run once it is taken', async () => {
    const checkpoint = gate()
    const { id, repo } = await open('never', { checkpoint })
    // the session's guest attaches at open; the snapshot waits for the (held) checkpoint guest
    await until(() => of('guest_status').some((e) => e.state === 'ready'), 'the guest to attach', 120_000)
    await service!.submit({ sessionId: id, op: { type: 'user_message', text: 'write it' } })
    await until(() => of('tool_call_started').length > 0 && checkpoint.waited(), 'the call to wait for the snapshot')
    await service!.submit({ sessionId: id, op: { type: 'set_mode', mode: 'plan' } })
    expect(of('mode_changed')).toMatchObject([{ mode: 'plan' }])
    checkpoint.open()
    // the PreToolUse hook lookup (extensions/hooks) may still be under way when the snapshot is first
    // waited for: the switch then lands at the approval step's recheck; either way the call is refused
    await expectRefused(id, repo, /its approval|the guest \(its start and the turn-start snapshot\)/)
  }, 180_000)
})
