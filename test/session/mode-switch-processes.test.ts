// A switch from Agent to a mode without bash ends what the model left running (ADR 0019), through
// the real session service, the real turn loop, a real Docker guest and the scripted model server:
// the model starts a setsid'd writer loop and a second one that ignores SIGTERM with a cleared
// environment; Stop in Agent mode leaves them running (dev servers outlive turns); the switch to
// Plan ends both (the files stop growing, no such process is left), reports how many in
// `mode_changed`, and the user's shell, opened before, still answers with its own job alive.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventEnvelope, SessionEvent } from '../../src/shared/events'
import { createDefaultGuestProvider, createSessionService, type SessionService } from '../../src/main/session'
import { ensureAgentBundle, makeTestRepo } from '../support/guest'
import { skipWithoutDocker } from '../support/requirements'
import { startScriptedModelServer, type ScriptStep, type ScriptedModelServer } from '../support/scripted-model-server'

/** The model's writer loop: leaves the bash call's process group and session. */
const TICK = `setsid sh -c 'while :; do date >> tick.txt; sleep 0.2; done' </dev/null >/dev/null 2>&1 &`
/** A harder one: ignores SIGTERM, clears its environment (no marker survives), double-forks. */
const TOCK = `( setsid sh -c 'trap "" TERM; exec env -i /bin/sh -c "while :; do echo x >> tock.txt; sleep 0.2; done"' </dev/null >/dev/null 2>&1 & ) &`

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const size = (path: string): number => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/** Wait (hang guard `ms`) until `check` holds. */
async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

describe.skipIf(skipWithoutDocker())('a switch to a mode without bash ends the model’s processes', () => {
  let service: SessionService
  let server: ScriptedModelServer
  const events: EventEnvelope[] = []

  async function open(script: ScriptStep[]): Promise<{ id: string; repo: string }> {
    ensureAgentBundle()
    server = await startScriptedModelServer(script)
    const repo = await makeTestRepo({ 'a.txt': 'a\n' })
    const dataDir = mkdtempSync(join(tmpdir(), 'cortex-modeproc-'))
    service = await createSessionService({
      dataDir,
      modelSettings: { provider: 'openai-compatible', modelId: 'm', baseUrl: server.baseUrl },
      guests: createDefaultGuestProvider({ warmPool: 0 })
    })
    const svc = service
    const srv = server
    cleanup.push(async () => {
      await svc.shutdown()
      await srv.close()
      rmSync(dataDir, { recursive: true, force: true })
    })
    service.onEvent((e) => events.push(e))
    const { id } = await service.openSession({ repo, mode: 'agent', approvalPolicy: 'never' })
    return { id, repo }
  }

  /** A shell in the session's guest, like the Terminal tab's Shell pane. */
  async function shell(sessionId: string) {
    const { shellId } = await service.openShell({ sessionId, cols: 200, rows: 40 })
    const output = (): string => events.map((e) => (e.event.type === 'shell_output' && e.event.shellId === shellId ? e.event.data : '')).join('')
    let n = 0
    /** Type `line` and return what `expr` (a shell expansion) printed; the typed text never matches the marker. */
    const ask = async (expr: string, line = ''): Promise<string> => {
      n += 1
      const re = new RegExp(`A${n}Z<([^>]*)>`)
      await service.shellInput({ shellId, data: `${line}echo "A${n}""Z<${expr}>"\r` })
      await until(() => re.test(output()), `the shell's answer to ${expr}:\n${output()}`)
      return re.exec(output())![1]!
    }
    return { ask }
  }

  it('Agent → Plan ends a setsid loop and a TERM-ignoring, env-cleared double fork; Stop does not; the user shell lives on', async () => {
    const script: ScriptStep[] = [{ toolCalls: [{ name: 'bash', args: { command: `${TICK}\n${TOCK}\necho started` } }] }, { text: 'running' }]
    const { id, repo } = await open(script)
    const user = await shell(id)
    expect(await user.ask('$(jobs | wc -l)', 'sleep 4747 & ')).toBe('1') // the user's own background job
    await service.submit({ sessionId: id, op: { type: 'user_message', text: 'start the loops' } })
    await service.idle(id)
    const tick = join(repo, 'tick.txt')
    const tock = join(repo, 'tock.txt')
    await until(() => size(tick) > 0 && size(tock) > 0, 'both loops to write')

    // Stop in Agent mode keeps background processes (dev servers outlive turns)
    await service.submit({ sessionId: id, op: { type: 'stop' } })
    const afterStop = size(tick)
    await until(() => size(tick) > afterStop, 'the loop to go on after Stop', 10_000)

    const from = events.length
    await service.submit({ sessionId: id, op: { type: 'set_mode', mode: 'plan' } })
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
    await sleep(1000) // five loop periods
    expect([size(tick), size(tock)]).toEqual(sizes)
    // nothing of theirs is left in the guest; the user's shell answers and its own job lives
    expect(await user.ask(`$(ps -eo args | grep -c '[t]i''ck.txt\\|[t]o''ck.txt')`)).toBe('0')
    expect(await user.ask(`$(ps -eo args | grep -c '^sleep 474[7]')`)).toBe('1')
  }, 120_000)
})
